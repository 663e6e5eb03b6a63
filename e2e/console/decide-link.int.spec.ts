// Starts: a private Redis, one gateway and one oracle-worker process (the console's address, a
// webhook secret, two attempts per delivery and http push endpoints allowed in its environment),
// the built ops console (`next start`), a local HTTP receiver (node:http in this file) standing for
// the webhook receiver, a receiver that is down and a push service, and Debian's Chromium
// (playwright-core, its DevTools protocol for the push message).
//
// Deciding from a notification on a phone: a tool call waits → the webhook carries an Approve
// link to the console → opened on a 375 px browser that is not signed in, the link leads to the
// sign-in page and back to the approval card (the token never stays in the address bar) → one
// tap approves as the signed-in operator and the agent's call goes ahead → the same link opened
// by another operator says the request was approved already, and by whom.
//
// Web Push into the console's service worker: the console is installable (its manifest is
// linked, the approvals page registers the service worker). A browser vendor's push service (FCM
// for Chromium) cannot be reached here, so two stand-ins meet in the middle: the worker posts the
// encrypted message to a local push endpoint stub, which decrypts it with the subscription keys
// this test made (what the push service and the browser do); the plaintext, exactly what the
// worker's push channel sent, is delivered to the registered service worker through Chromium's
// DevTools protocol (ServiceWorker.deliverPushMessage, the "Push" button of DevTools). The worker
// shows the notification with Approve and Reject; the tap is dispatched in the worker as a
// notificationclick with the approve action (a synthetic event may not open a window, so
// clients.openWindow is replaced there to record the URL it is asked to open), and that URL
// decides at 375 px. "Notify this device" is clicked too: a subscription goes through the
// browser's push service, and this headless Chromium refuses it ("Registration failed -
// permission denied", notifications granted); the test checks the operator is told and nothing
// is saved.
//
// Dead letters on the health page: a channel whose receiver answers 500 is dead-lettered after
// its two attempts; an admin sees it on /health, replays it, sees the delivery pending while the
// receiver holds the new attempt, then dead again.
import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext } from 'playwright-core';
import { NotificationBodySchema, NotificationDeliveriesResponseSchema, PushPayloadSchema, type NotificationDeliveriesResponse } from '@ahp/protocol';
import { connect, type AhpClient, type AwaitingApprovalInfo } from '@ahp/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allWorkersServe, publishThroughStore } from '../system/config-support.js';
import { eventually } from '../system/harness.js';
import { browserKeys, decryptPush, subscriptionFor } from '../system/push-stub.js';
import { operatorCall } from '../system/team-support.js';
import { PHONE_VIEWPORT, startConsoleSuite, type ConsoleSuite } from './console-harness.js';

const SECRET = 'e2e-decide-webhook-secret-0123456789';

const config = (port: number) => `version: 1
notifications:
  channels:
    on-call: { type: webhook, url: "http://127.0.0.1:${port}/hook", secret_env: AHP_E2E_WEBHOOK_SECRET }
    down: { type: webhook, url: "http://127.0.0.1:${port}/down", secret_env: AHP_E2E_WEBHOOK_SECRET }
    phones: { type: push, operators: [op-alice] }
  routes:
    - types: [tool_approval]
      teams: [payments]
      channels: [on-call]
    - teams: [web]
      channels: [down]
    - teams: [mobile]
      channels: [phones]
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

interface Received {
  path: string;
  raw: Buffer;
}

/** A notification as `registration.getNotifications()` lists it (read in the page). */
interface ShownNotification {
  title: string;
  body: string;
  tag: string;
  actions: { action: string; title: string }[];
}

describe('deciding from a notification link on a phone', () => {
  let suite: ConsoleSuite;
  let receiver: Server;
  const received: Received[] = [];
  /** While set, the down receiver holds its answers (a slow receiver) until released. */
  let holdDown = false;
  const held: ServerResponse[] = [];
  const contexts: BrowserContext[] = [];
  const clients: AhpClient[] = [];

  const bodies = (path: string) => received.filter((r) => r.path === path).map((r) => r.raw.toString('utf8'));

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '';
        received.push({ path, raw: Buffer.concat(chunks) });
        if (path === '/down') {
          if (holdDown) held.push(res);
          else res.writeHead(500).end();
        } else res.writeHead(path.startsWith('/push/') ? 201 : 204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    const port = (receiver.address() as AddressInfo).port;
    suite = await startConsoleSuite(
      'decide-link',
      [
        { id: 'builder', name: 'Builder', team: 'payments' },
        { id: 'webber', name: 'Webber', team: 'web' },
        { id: 'mobi', name: 'Mobi', team: 'mobile' },
      ],
      {
        workerEnv: (consoleUrl) => ({
          AHP_CONSOLE_URL: consoleUrl,
          AHP_E2E_WEBHOOK_SECRET: SECRET,
          AHP_NOTIFY_ATTEMPTS: '2',
          AHP_NOTIFY_BACKOFF_MS: '50',
          // The push endpoint stub is plain http on loopback; push services are https.
          AHP_PUSH_ALLOW_HTTP: 'true',
        }),
      },
    );
    await allWorkersServe(suite.system, await publishThroughStore(suite.system, config(port)));
  }, 120_000);

  afterAll(async () => {
    for (const res of held.splice(0)) res.writeHead(500).end();
    await Promise.allSettled(contexts.map((context) => context.close()));
    await Promise.allSettled(clients.map((client) => client.close()));
    await suite?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  async function agent(id: string): Promise<AhpClient> {
    const client = await connect({ url: suite.agentUrl(), token: suite.system.token(id), reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
    clients.push(client);
    return client;
  }

  async function deliveries(): Promise<NotificationDeliveriesResponse> {
    const { status, json } = await operatorCall(suite.operatorApi(), suite.operators.token('op-ada'), 'GET', '/notifications/deliveries?limit=100');
    expect(status, JSON.stringify(json)).toBe(200);
    return NotificationDeliveriesResponseSchema.parse(json);
  }

  it('signs in, shows the approval card, approves in one tap; the same link later says who decided', async () => {
    const client = await agent('builder');
    const waits: AwaitingApprovalInfo[] = [];
    const result = client.hook('pre-tool-use', { tool: { name: 'deploy', input: { env: 'production' } } }, { onAwaitingApproval: (info) => waits.push(info) });
    result.catch(() => undefined);
    const { requestId } = await eventually(() => waits[0], 'the hook to wait for an approval');
    const body = await eventually(() => {
      const raw = bodies('/hook').find((b) => b.includes(requestId));
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

  it("Web Push: the worker's message, delivered to the service worker, shows Approve and Reject; the approve tap opens a /decide page that decides at 375 px", async () => {
    const { context, page } = await suite.signIn('op-alice', { viewport: PHONE_VIEWPORT });
    contexts.push(context);
    await context.grantPermissions(['notifications'], { origin: suite.baseUrl });
    // Installable: the manifest is linked and served, the approvals page registers the worker.
    const manifestHref = await page.locator('link[rel="manifest"]').getAttribute('href');
    expect(manifestHref).toBe('/manifest.webmanifest');
    const manifest = (await (await page.request.get(manifestHref!)).json()) as { start_url: string; display: string };
    expect(manifest).toMatchObject({ start_url: '/approvals', display: 'standalone' });
    await page.goto('/approvals');
    const cdp = await context.newCDPSession(page);
    const registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (event) => registrations.push(...event.registrations));
    await cdp.send('ServiceWorker.enable');
    const notify = page.getByRole('button', { name: 'Notify this device' });
    await notify.waitFor();
    const script = await page.evaluate<string | undefined>('navigator.serviceWorker.ready.then((r) => r.active?.scriptURL)');
    expect(script).toBe(`${suite.baseUrl}/sw.js`);
    const { registrationId } = await eventually(() => registrations.find((r) => r.scopeURL === `${suite.baseUrl}/` && !r.isDeleted), 'the registration in DevTools');

    // "Notify this device": the permission is granted, then the subscription needs the browser's
    // push service (Google's, for Chromium), which this headless, offline Chromium refuses
    // ("Registration failed - permission denied"): the operator is told, nothing is saved.
    await notify.click();
    const failed = page.locator('[data-push="error"]');
    await failed.waitFor();
    expect(await page.evaluate<string>('Notification.permission')).toBe('granted');
    expect(await failed.getByRole('alert').textContent()).toContain('Push notifications: Registration failed');
    expect((await operatorCall(suite.operatorApi(), suite.operators.token('op-alice'), 'GET', '/push/subscriptions')).json).toEqual({ subscriptions: [] });

    // The push service's side: a subscription with keys made here, its endpoint the local stub.
    const keys = browserKeys();
    const saved = await operatorCall(suite.operatorApi(), suite.operators.token('op-alice'), 'POST', '/push/subscriptions', subscriptionFor(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/push/alice-phone`, keys));
    expect(saved.status, JSON.stringify(saved.json)).toBe(200);

    const client = await agent('mobi');
    const waits: AwaitingApprovalInfo[] = [];
    const result = client.hook('pre-tool-use', { tool: { name: 'deploy', input: { env: 'mobile' } } }, { onAwaitingApproval: (info) => waits.push(info) });
    result.catch(() => undefined);
    const { requestId } = await eventually(() => waits[0], 'the hook to wait for an approval');
    const pushed = await eventually(() => received.find((r) => r.path === '/push/alice-phone'), 'the push message at the stub');
    const plaintext = decryptPush(pushed.raw, keys);
    const payload = PushPayloadSchema.parse(JSON.parse(plaintext));
    expect(payload).toMatchObject({ request_id: requestId, title: 'A tool call waits for approval: mobi (mobile)' });
    expect(payload.links?.approve.startsWith(`${suite.baseUrl}/decide#v1.`)).toBe(true);

    // What the push service would hand to the browser: the worker's plaintext, into the worker.
    await cdp.send('ServiceWorker.deliverPushMessage', { origin: suite.baseUrl, registrationId, data: plaintext });
    const shown = await eventually(async () => {
      const list = await page.evaluate<ShownNotification[]>(
        'navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((all) => all.map((n) => ({ title: n.title, body: n.body, tag: n.tag, actions: n.actions.map((a) => ({ action: a.action, title: a.title })) })))',
      );
      return list.length > 0 ? list : undefined;
    }, 'the notification');
    expect(shown).toEqual([{ title: payload.title, body: payload.body, tag: requestId, actions: [{ action: 'approve', title: 'Approve' }, { action: 'reject', title: 'Reject' }] }]);

    // The tap on Approve: the worker's own notificationclick handler, with the approve action.
    const worker = context.serviceWorkers().find((w) => w.url() === `${suite.baseUrl}/sw.js`) ?? (await context.waitForEvent('serviceworker'));
    const tapped = await worker.evaluate<{ opened: string | undefined; left: number }>(`(async () => {
      const [notification] = await self.registration.getNotifications();
      let opened;
      let waited;
      self.clients.openWindow = async (url) => { opened = url; return null; };
      const event = new NotificationEvent('notificationclick', { notification, action: 'approve' });
      Object.defineProperty(event, 'waitUntil', { value: (promise) => { waited = promise; } });
      self.dispatchEvent(event);
      await waited;
      return { opened, left: (await self.registration.getNotifications()).length };
    })()`);
    expect(tapped).toEqual({ opened: payload.links!.approve, left: 0 });

    // The page it opens, on the phone: the card for that request, one tap, the agent goes ahead.
    await page.goto(tapped.opened!);
    const card = page.locator(`article[data-request-id="${requestId}"]`);
    await card.waitFor();
    expect(await page.evaluate<number>('document.documentElement.clientWidth')).toBe(375);
    await card.getByRole('button', { name: 'Approve' }).click();
    await page.locator('[data-link-done="approved"]').waitFor();
    expect(await page.locator('[data-link-done]').textContent()).toContain('Decided by op-alice');
    expect((await result).allowed).toBe(true);
    await suite.screenshot(page, 'decide-push-phone');
  });

  it('dead letters on the health page: an admin replays one, sees it pending while the receiver holds the attempt, then dead again', async () => {
    const client = await agent('webber');
    const first = await client.hook('pre-tool-use', { tool: { name: 'deploy', input: { env: 'web' } } }, { waitForApproval: false });
    const requestId = first.block?.awaitingApproval?.requestId;
    expect(requestId).toBeDefined();
    const dead = await eventually(async () => (await deliveries()).dead_letters.find((d) => d.request_id === requestId), 'the dead letter');
    expect(dead).toMatchObject({ channel: 'down', attempts: 2 });

    const { context, page } = await suite.signIn('op-ada');
    contexts.push(context);
    await page.goto('/health');
    const letter = page.getByRole('list', { name: 'Dead letters' }).getByRole('listitem').filter({ hasText: requestId! });
    await letter.waitFor();
    expect(await letter.textContent()).toContain('2 attempts');
    const status = page.getByRole('row').filter({ hasText: requestId! }).locator('td[data-label="Status"] .badge');
    expect(await status.textContent()).toBe('dead');

    holdDown = true;
    await letter.getByRole('button', { name: `Replay the delivery of ${requestId} to down` }).click();
    // Re-read after the replay: pending, off the dead-letter list, while its attempt is held.
    await page.getByRole('row').filter({ hasText: requestId! }).locator('td[data-label="Status"] .badge', { hasText: 'pending' }).waitFor();
    await letter.waitFor({ state: 'detached' });
    await eventually(() => (held.length > 0 ? true : undefined), 'the replayed attempt at the receiver');
    await suite.screenshot(page, 'health-dead-letter-replayed');

    holdDown = false;
    for (const res of held.splice(0)) res.writeHead(500).end();
    await eventually(async () => (await deliveries()).deliveries.find((d) => d.delivery_id === dead.delivery_id && d.status === 'dead'), 'the delivery dead again');
    await page.reload();
    await letter.waitFor();
    expect(await status.textContent()).toBe('dead');
    expect(await page.getByRole('row').filter({ hasText: requestId! }).textContent()).toContain('replayed by op-ada');
    expect(bodies('/down').filter((b) => b.includes(requestId!))).toHaveLength(4);
  });
});
