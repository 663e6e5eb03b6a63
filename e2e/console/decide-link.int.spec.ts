// Starts: a private Redis, one gateway and one oracle-worker process (the console's address and
// a webhook secret in its environment), the built ops console (`next start`), a local HTTP
// receiver (node:http in this file) for the webhook, and Debian's Chromium (playwright-core).
//
// Deciding from a notification on a phone: a tool call waits → the webhook carries an Approve
// link to the console → opened on a 375 px browser that is not signed in, the link leads to the
// sign-in page and back to the approval card (the token never stays in the address bar) → one
// tap approves as the signed-in operator and the agent's call goes ahead → the same link opened
// by another operator says the request was approved already, and by whom. The console is an
// installable app: its manifest is linked, and the approvals page registers the service worker
// that shows Web Push notifications (the push service itself cannot be reached here: the push
// path is tested against a local endpoint stub in e2e/system/notification-links.int.spec.ts).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext } from 'playwright-core';
import { NotificationBodySchema } from '@ahp/protocol';
import { connect, type AhpClient, type AwaitingApprovalInfo } from '@ahp/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allWorkersServe, publishThroughStore } from '../system/config-support.js';
import { eventually } from '../system/harness.js';
import { PHONE_VIEWPORT, startConsoleSuite, type ConsoleSuite } from './console-harness.js';

const SECRET = 'e2e-decide-webhook-secret-0123456789';

const config = (port: number) => `version: 1
notifications:
  channels:
    on-call: { type: webhook, url: "http://127.0.0.1:${port}/hook", secret_env: AHP_E2E_WEBHOOK_SECRET }
  routes:
    - types: [tool_approval]
      channels: [on-call]
hooks:
  pre-tool-use:
    oracles:
      - name: risky
        use: rules
        rules:
          - id: deploy
            condition: 'tool.name == "deploy"'
            require_approval: { deadline: 5m }
`;

describe('deciding from a notification link on a phone', () => {
  let suite: ConsoleSuite;
  let receiver: Server;
  const bodies: string[] = [];
  const contexts: BrowserContext[] = [];
  let client: AhpClient | undefined;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    const port = (receiver.address() as AddressInfo).port;
    suite = await startConsoleSuite('decide-link', [{ id: 'builder', name: 'Builder', team: 'payments' }], {
      workerEnv: (consoleUrl) => ({ AHP_CONSOLE_URL: consoleUrl, AHP_E2E_WEBHOOK_SECRET: SECRET }),
    });
    await allWorkersServe(suite.system, await publishThroughStore(suite.system, config(port)));
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled(contexts.map((context) => context.close()));
    await client?.close();
    await suite?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('signs in, shows the approval card, approves in one tap; the same link later says who decided', async () => {
    client = await connect({ url: suite.agentUrl(), token: suite.system.token('builder'), reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
    const waits: AwaitingApprovalInfo[] = [];
    const result = client.hook('pre-tool-use', { tool: { name: 'deploy', input: { env: 'production' } } }, { onAwaitingApproval: (info) => waits.push(info) });
    result.catch(() => undefined);
    const { requestId } = await eventually(() => waits[0], 'the hook to wait for an approval');
    const body = await eventually(() => {
      const raw = bodies.find((b) => b.includes(requestId));
      return raw === undefined ? undefined : NotificationBodySchema.parse(JSON.parse(raw));
    }, 'the webhook');
    const approve = body.links?.approve;
    expect(approve?.startsWith(`${suite.baseUrl}/decide#v1.`)).toBe(true);

    // A phone that is not signed in: the link leads to the sign-in page, then back to the card.
    const context = await suite.browser.newContext({ viewport: PHONE_VIEWPORT });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(approve!);
    // The page itself sends the operator to sign in (a script navigation): wait until the sign-in
    // page is loaded, hydration included, before typing (as signIn does after its page.goto).
    await page.waitForURL((url) => url.pathname === '/sign-in');
    await page.waitForLoadState('load');
    await page.getByLabel('Operator token').fill(suite.operators.token('op-alice'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    const card = page.locator(`article[data-request-id="${requestId}"]`);
    await card.waitFor();
    expect(new URL(page.url()).pathname).toBe('/decide');
    expect(page.url()).not.toContain('#v1.');
    expect(await card.getByRole('heading', { level: 1 }).textContent()).toBe('Approve this request?');
    expect(await card.textContent()).toContain('deploy');
    // Opening the card decided nothing.
    expect(waits).toHaveLength(1);
    await suite.screenshot(page, 'decide-link-phone');

    await card.getByRole('button', { name: 'Approve' }).click();
    await page.locator('[data-link-done="approved"]').waitFor();
    expect(await page.locator('[data-link-done]').textContent()).toContain('Decided by op-alice');
    expect((await result).allowed).toBe(true);

    // The same link, opened by another signed-in operator: approved already, by op-alice.
    const { context: other, page: second } = await suite.signIn('op-bob', { viewport: PHONE_VIEWPORT });
    contexts.push(other);
    await second.goto(approve!);
    const notice = second.locator('[data-link-notice="settled"]');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('op-alice approved it');
  });

  it('is installable: the manifest is linked and served, and the approvals page registers the service worker', async () => {
    const { context, page } = await suite.signIn('op-alice', { viewport: PHONE_VIEWPORT });
    contexts.push(context);
    const manifestHref = await page.locator('link[rel="manifest"]').getAttribute('href');
    expect(manifestHref).toBe('/manifest.webmanifest');
    const manifest = (await (await page.request.get(manifestHref!)).json()) as { start_url: string; display: string };
    expect(manifest).toMatchObject({ start_url: '/approvals', display: 'standalone' });
    await page.goto('/approvals');
    await page.getByRole('button', { name: 'Notify this device' }).waitFor();
    // Runs in the page; `globalThis` is the window there (this project's types are Node's).
    const script = await page.evaluate(async () => {
      const worker = (globalThis as unknown as { navigator: { serviceWorker: { ready: Promise<{ active: { scriptURL: string } | null }> } } }).navigator.serviceWorker;
      return (await worker.ready).active?.scriptURL;
    });
    expect(script).toBe(`${suite.baseUrl}/sw.js`);
  });
});
