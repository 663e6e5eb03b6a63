/**
 * The ops console (apps/console, Next.js) as a process of the stack: `next start` of the built
 * app, pointed at a gateway. Next prints no JSON ready line, so its own "Ready" line (after the
 * "Local: http://…" line that names the port) counts as one, and the console is only handed out
 * once it answers HTTP.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { spawnService, type ReadyLine, type ServiceProcess } from './service-process.js';

/** Where the console lives, relative to the workspace root. */
export const CONSOLE_DIR = 'apps/console';

export interface ConsoleOptions {
  /** The gateway whose operator API and live feed the console serves, e.g. `http://127.0.0.1:8080`. */
  gatewayUrl: string;
  /**
   * Port to listen on; 0 picks a free one.
   * @defaultValue 3000
   */
  port?: number;
  /**
   * Interface to listen on (Next's default: every interface, like the gateway).
   * @defaultValue "0.0.0.0"
   */
  hostname?: string;
  /** Extra environment for the console process. */
  env?: Record<string, string>;
  logFile?: string;
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
  /**
   * How long to wait until it answers.
   * @defaultValue 60000
   */
  readyTimeoutMs?: number;
  /** @defaultValue the workspace root */
  workspaceRoot: string;
}

/** A running console: the process, and the URL a browser on this machine opens. */
export interface ConsoleProcess extends ServiceProcess {
  readonly url: string;
}

/** The console has not been built (`next start` needs `.next`). */
export class ConsoleNotBuiltError extends Error {
  override readonly name = 'ConsoleNotBuiltError';
}

/** A recogniser for `next start`'s output: remembers the port of the "Local:" line, then reports ready on "Ready in". */
export function nextReadyLine(): (line: string) => ReadyLine | undefined {
  let port: number | undefined;
  return (line) => {
    const local = /Local:\s+https?:\/\/[^\s:/]+:(\d+)/.exec(line);
    if (local?.[1]) port = Number(local[1]);
    if (/\bReady in\b/.test(line) && port !== undefined) return { event: 'ready', service: 'console', port };
    return undefined;
  };
}

/** Waits until `url` answers with a status below 500 (the server is listening and rendering). */
async function waitUntilAnswers(url: string, timeoutMs: number, exited: Promise<unknown>): Promise<void> {
  const until = Date.now() + timeoutMs;
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error('the console exited before answering');
    try {
      const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(5000) });
      await response.body?.cancel();
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`the console did not answer ${url} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts the built console and resolves once it answers HTTP. */
export async function startConsole(options: ConsoleOptions): Promise<ConsoleProcess> {
  const dir = join(options.workspaceRoot, CONSOLE_DIR);
  if (!existsSync(join(dir, '.next', 'BUILD_ID'))) {
    throw new ConsoleNotBuiltError(`the console is not built (${CONSOLE_DIR}/.next is missing): run npx nx run @ahp/console:build`);
  }
  const nextBin = createRequire(join(dir, 'package.json')).resolve('next/dist/bin/next');
  const timeoutMs = options.readyTimeoutMs ?? 60_000;
  const service = await spawnService({
    name: 'console',
    entry: nextBin,
    args: ['start', '--port', String(options.port ?? 3000), '--hostname', options.hostname ?? '0.0.0.0'],
    cwd: dir,
    env: { NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1', AHP_GATEWAY_URL: options.gatewayUrl, ...options.env },
    readyLine: nextReadyLine(),
    readyTimeoutMs: timeoutMs,
    ...(options.logFile ? { logFile: options.logFile } : {}),
    ...(options.onLine ? { onLine: options.onLine } : {}),
  });
  const url = `http://127.0.0.1:${String(service.ready['port'])}`;
  try {
    await waitUntilAnswers(`${url}/sign-in`, timeoutMs, service.exited);
  } catch (error) {
    await service.stop();
    throw error;
  }
  return { ...service, url };
}
