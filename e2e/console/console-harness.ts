/**
 * The real stack plus the ops console for the browser tests: a private Redis, a gateway and a
 * worker as processes, the built console (`next start`) pointed at the gateway, operator tokens
 * for each role, and one Debian Chromium driven through playwright-core. Each scenario opens its
 * own browser context and signs in through the console's sign-in page.
 */
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { findWorkspaceRoot } from '@ahp/embedded-redis';
import type { AgentIdentity, OperatorIdentity } from '@ahp/protocol';
import { agentEndpoint, type ServiceProcess } from '@ahp/stack';
import { startSystem, type System } from '../system/harness.js';
import { writeOperatorTokens, type OperatorTokens } from '../system/team-support.js';

/**
 * One operator per role, a second approver for the "who decided first" scenario, and a viewer
 * whose token is scoped to the `orders` team.
 */
export const OPERATORS = [
  { id: 'op-alice', name: 'Alice', role: 'approver' },
  { id: 'op-bob', name: 'Bob', role: 'approver' },
  { id: 'op-viv', name: 'Viv', role: 'viewer' },
  { id: 'op-ada', name: 'Ada', role: 'admin' },
  { id: 'op-olga', name: 'Olga', role: 'viewer', scope: { teams: ['orders'] } },
] as const satisfies readonly OperatorIdentity[];
export type OperatorId = (typeof OPERATORS)[number]['id'];

/** Where the screenshots go: `test-results/console-screenshots/` at the workspace root. */
export const SCREENSHOT_DIR = join(findWorkspaceRoot(), 'test-results', 'console-screenshots');

/** Chromium flags for a headless run in a container: no sandbox, no GPU, nothing that phones home. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

/** A phone: the console must work at 375 px. */
export const PHONE_VIEWPORT = { width: 375, height: 812 };
export const LAPTOP_VIEWPORT = { width: 1366, height: 900 };

export interface ConsoleSuite {
  readonly system: System;
  readonly operators: OperatorTokens;
  /** The console's base URL, e.g. `http://127.0.0.1:41234`. */
  readonly baseUrl: string;
  readonly browser: Browser;
  /** The gateway the console and the agents talk to now (it changes when a test restarts it). */
  gateway(): ServiceProcess;
  /** The current gateway's agent endpoint and operator API base URL. */
  agentUrl(): string;
  operatorApi(): string;
  /** Stops the gateway, then starts a new one on the same port (what the console is pointed at). */
  stopGateway(): Promise<number>;
  startGateway(port: number): Promise<ServiceProcess>;
  /**
   * A fresh browser context signed in as `operatorId` through the sign-in page, on the fleet page.
   * `cutLiveFeed` makes every request to `/api/live` fail from the start, as if the feed lagged
   * forever: the page keeps what it loaded and never hears of changes. `colorScheme: 'dark'`
   * makes the browser report a dark system preference (the console's dark theme).
   */
  signIn(
    operatorId: OperatorId,
    options?: { viewport?: { width: number; height: number }; cutLiveFeed?: boolean; colorScheme?: 'light' | 'dark' },
  ): Promise<{ context: BrowserContext; page: Page }>;
  /** Saves a full-page screenshot as `<name>.png` in {@link SCREENSHOT_DIR}. */
  screenshot(page: Page, name: string): Promise<void>;
  stop(): Promise<void>;
}

/** A port nobody listens on right now (the console's port must be known before the gateways start). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** `workerEnv(consoleUrl)`: extra variables of the worker, which may need the console's address (notifications link to it). */
export async function startConsoleSuite(name: string, agents: AgentIdentity[], options: { workerEnv?: (consoleUrl: string) => Record<string, string> } = {}): Promise<ConsoleSuite> {
  const operators = await writeOperatorTokens(OPERATORS);
  const consolePort = await freePort();
  const baseUrl = `http://127.0.0.1:${consolePort}`;
  let system: System | undefined;
  let browser: Browser | undefined;
  try {
    system = await startSystem({
      name,
      agents,
      gateways: 1,
      workers: 1,
      gatewayEnv: { AHP_OPERATOR_TOKENS_FILE: operators.file, AHP_CONSOLE_ORIGINS: baseUrl },
      ...(options.workerEnv === undefined ? {} : { workerEnv: options.workerEnv(baseUrl) }),
      console: { port: consolePort, hostname: '127.0.0.1' },
    });
    browser = await chromium.launch({ executablePath: process.env['AHP_CHROMIUM'] ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  } catch (error) {
    await system?.stop();
    await operators.remove();
    throw error;
  }
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const running = system;
  const openBrowser = browser;
  const [first] = running.stack.gateways;
  if (!first) throw new Error('the stack started no gateway');
  let current: ServiceProcess = first;

  return {
    system: running,
    operators,
    baseUrl,
    browser: openBrowser,
    gateway: () => current,
    agentUrl: () => agentEndpoint(current),
    operatorApi: () => `http://127.0.0.1:${String(current.ready['port'])}/v1/operator`,
    stopGateway: async () => {
      const port = Number(current.ready['port']);
      await current.stop();
      return port;
    },
    startGateway: async (port) => {
      current = await running.stack.addGateway({ port });
      return current;
    },
    signIn: async (operatorId, options = {}) => {
      const context = await openBrowser.newContext({ baseURL: baseUrl, viewport: options.viewport ?? LAPTOP_VIEWPORT, colorScheme: options.colorScheme ?? 'light' });
      // Whatever agents the page follows (`/api/live?agents=…`).
      if (options.cutLiveFeed) await context.route((url) => url.pathname === '/api/live', (route) => route.abort());
      const page = await context.newPage();
      await page.goto('/sign-in');
      await page.getByLabel('Operator token').fill(operators.token(operatorId));
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Fleet' }).waitFor();
      return { context, page };
    },
    screenshot: async (page, shot) => {
      await page.screenshot({ path: join(SCREENSHOT_DIR, `${shot}.png`), fullPage: true });
    },
    stop: async () => {
      await openBrowser.close();
      await running.stop();
      await operators.remove();
    },
  };
}

/**
 * A small screenshot for docs/console/ (`docs-<name>.png` beside the full-page ones): one element,
 * or what a page shows in its viewport — a full page of a phone is thousands of pixels tall.
 */
export async function docShot(target: Page | Locator, name: string): Promise<void> {
  await target.screenshot({ path: join(SCREENSHOT_DIR, `docs-${name}.png`) });
}

/** Waits until the page's live feed is connected (its first `ready` arrived). */
export async function liveReady(page: Page): Promise<void> {
  await page.locator('[data-live="live"]').waitFor();
}
