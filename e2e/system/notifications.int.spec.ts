// Starts: a private Redis, one gateway process (with operator tokens), one oracle-worker process
// (with a webhook secret in its environment), and a local HTTP receiver (node:http in this file)
// standing for the people's webhook endpoints and a Slack-compatible incoming webhook.
//
// Notifications, end to end: a tool call waits for approval (a rule with require_approval) → the
// worker posts to every routed channel: signed JSON to the webhooks, a message to the Slack one;
// a receiver that fails twice gets three attempts and one delivery; a receiver that always fails
// ends on the dead-letter list while the request still waits, and the operator's decision then
// reaches the agent; a request from a team no route names notifies nobody.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NotificationBodySchema, NotificationDeliveriesResponseSchema, type NotificationDeliveriesResponse } from '@ahp/protocol';
import { connect, type AhpClient, type AwaitingApprovalInfo } from '@ahp/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allWorkersServe, publishThroughStore } from './config-support.js';
import { eventually, startSystem, type System } from './harness.js';
import { operatorApi, operatorCall, writeOperatorTokens, type OperatorTokens } from './team-support.js';

const SECRET = 'e2e-webhook-secret-0123456789abcdef';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  answered: number;
}

/** The local receiver: `/ok` answers 200, `/flaky` 500 to the first two attempts of a delivery then 200, `/down` always 500, `/slack` 200. */
function startReceiver(): Promise<{ server: Server; port: number; received: Received[] }> {
  const received: Received[] = [];
  const flakyAttempts = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      const delivery = String(req.headers['x-ahp-delivery'] ?? '');
      let status = 200;
      if (path === '/down') status = 500;
      if (path === '/flaky') {
        const seen = (flakyAttempts.get(delivery) ?? 0) + 1;
        flakyAttempts.set(delivery, seen);
        status = seen <= 2 ? 500 : 200;
      }
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answered: status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'receiver down');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port, received })));
}

/** What a receiver runs: the HMAC-SHA256 of the raw body with the shared secret, compared in constant time. */
function signatureValid(body: string, header: unknown): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', SECRET).update(body, 'utf8').digest('hex')}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const config = (port: number) => `version: 1
notifications:
  channels:
    on-call: { type: webhook, url: "http://127.0.0.1:${port}/ok", secret_env: AHP_E2E_WEBHOOK_SECRET }
    flaky: { type: webhook, url: "http://127.0.0.1:${port}/flaky", secret_env: AHP_E2E_WEBHOOK_SECRET }
    down: { type: webhook, url: "http://127.0.0.1:${port}/down", secret_env: AHP_E2E_WEBHOOK_SECRET }
    chat: { type: slack, url: "http://127.0.0.1:${port}/slack" }
  routes:
    - types: [tool_approval]
      teams: [payments]
      channels: [on-call, flaky, down, chat]
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

describe('notifications of requests waiting for people', () => {
  let system: System;
  let operators: OperatorTokens;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let api: string;
  const clients: AhpClient[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    operators = await writeOperatorTokens([
      { id: 'op-ada', name: 'Ada', role: 'admin' },
      { id: 'op-vic', name: 'Vic', role: 'viewer' },
    ]);
    system = await startSystem({
      name: 'notifications',
      gateways: 1,
      workers: 1,
      agents: [
        { id: 'builder', name: 'Builder', team: 'payments' },
        { id: 'outsider', name: 'Outsider', team: 'web' },
      ],
      gatewayEnv: { AHP_OPERATOR_TOKENS_FILE: operators.file },
      workerEnv: {
        AHP_E2E_WEBHOOK_SECRET: SECRET,
        AHP_NOTIFY_ATTEMPTS: '3',
        AHP_NOTIFY_BACKOFF_MS: '50',
        AHP_CONSOLE_URL: 'http://console.example.test/',
      },
    });
    api = operatorApi(system.stack.gateways[0]!);
    await allWorkersServe(system, await publishThroughStore(system, config(receiver.port)));
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await system?.stop();
    await operators?.remove();
    await new Promise((resolve) => receiver?.server.close(resolve));
  });

  async function agent(id: string): Promise<AhpClient> {
    const client = await connect({ url: system.stack.gatewayUrls()[0]!, token: system.token(id), reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
    clients.push(client);
    return client;
  }

  async function deliveries(): Promise<NotificationDeliveriesResponse> {
    const { status, json } = await operatorCall(api, operators.token('op-ada'), 'GET', '/notifications/deliveries?limit=50');
    expect(status, JSON.stringify(json)).toBe(200);
    return NotificationDeliveriesResponseSchema.parse(json);
  }

  const receivedFor = (path: string, requestId: string) =>
    receiver.received.filter((r) => r.path === path && (path === '/slack' ? r.body.includes(requestId) : JSON.parse(r.body).request?.id === requestId));

  it('a waiting tool call is announced on every routed channel, signed; failing channels retry and dead-letter; the request still waits and its decision reaches the agent', async () => {
    const client = await agent('builder');
    const waits: AwaitingApprovalInfo[] = [];
    const result = client.hook('pre-tool-use', { tool: { name: 'deploy', input: { env: 'production', api_key: 'k-should-not-leave' } } }, { onAwaitingApproval: (info) => waits.push(info) });
    const { requestId } = await eventually(() => waits[0], 'the hook to wait for an approval');

    // The webhook arrives, signed, with the request id, a link to the approvals page and no secret.
    const [delivered] = await eventually(() => (receivedFor('/ok', requestId).length > 0 ? receivedFor('/ok', requestId) : undefined), 'the on-call webhook');
    expect(signatureValid(delivered!.body, delivered!.headers['x-ahp-signature'])).toBe(true);
    expect(signatureValid(`${delivered!.body} `, delivered!.headers['x-ahp-signature'])).toBe(false);
    const body = NotificationBodySchema.parse(JSON.parse(delivered!.body));
    expect(body).toMatchObject({
      event: 'request.waiting',
      channel: 'on-call',
      attempt: 1,
      console_url: 'http://console.example.test/approvals',
      request: { id: requestId, type: 'tool_approval', sender: 'builder', team: 'payments', tool: 'deploy', input: { env: 'production', api_key: '[redacted]' } },
    });
    expect(body.request.deadline).toBeDefined();
    expect(delivered!.headers['x-ahp-delivery']).toBe(body.delivery_id);
    expect(delivered!.headers['x-ahp-timestamp']).toBe(String(Math.floor(Date.parse(body.sent_at) / 1000)));
    expect(delivered!.body).not.toContain('k-should-not-leave');
    expect(delivered!.body).not.toContain(SECRET);

    // Slack: a message with the request and a button to the console.
    const [slack] = await eventually(() => (receivedFor('/slack', requestId).length > 0 ? receivedFor('/slack', requestId) : undefined), 'the Slack message');
    const message = JSON.parse(slack!.body) as { text: string; blocks: { type: string; elements?: { action_id: string; url: string }[] }[] };
    expect(message.text).toContain('A tool call waits for approval: builder (payments)');
    // Approve and Reject (decision links, notification-links.int.spec.ts), then the console.
    const buttons = message.blocks.find((block) => block.type === 'actions')?.elements ?? [];
    expect(buttons.map((button) => button.action_id)).toEqual(['ahp-approve', 'ahp-reject', 'ahp-open-console']);
    expect(buttons[2]?.url).toBe('http://console.example.test/approvals');

    // 500, 500, 200: three attempts recorded, delivered once.
    const flaky = await eventually(async () => (await deliveries()).deliveries.find((d) => d.request_id === requestId && d.channel === 'flaky' && d.status === 'delivered'), 'the flaky channel delivered');
    expect(flaky.attempts.map((a) => [a.attempt, a.ok, a.status_code])).toEqual([
      [1, false, 500],
      [2, false, 500],
      [3, true, 200],
    ]);
    const flakyReceived = receivedFor('/flaky', requestId);
    expect(flakyReceived.map((r) => r.answered)).toEqual([500, 500, 200]);
    expect(new Set(flakyReceived.map((r) => r.headers['x-ahp-delivery']))).toEqual(new Set([flaky.delivery_id]));
    expect(flakyReceived.every((r) => signatureValid(r.body, r.headers['x-ahp-signature']))).toBe(true);

    // Always 500: dead letter after the three attempts.
    const listing = await eventually(async () => {
      const now = await deliveries();
      return now.dead_letters.some((d) => d.request_id === requestId && d.channel === 'down') ? now : undefined;
    }, 'the down channel on the dead-letter list');
    expect(listing.dead_letters.find((d) => d.request_id === requestId)).toMatchObject({ channel: 'down', attempts: 3, error: 'the receiver answered 500' });
    expect(listing.deliveries.find((d) => d.request_id === requestId && d.channel === 'down')).toMatchObject({ status: 'dead', attempts: [{ ok: false }, { ok: false }, { ok: false }] });
    expect(listing.deliveries.find((d) => d.request_id === requestId && d.channel === 'on-call')).toMatchObject({ status: 'delivered', attempts: [{ ok: true, status_code: 200 }] });
    expect(receivedFor('/down', requestId)).toHaveLength(3);
    expect(receivedFor('/ok', requestId)).toHaveLength(1);

    // The failures changed nothing for the request: it still waits, and the person's decision reaches the agent.
    const pending = await operatorCall(api, operators.token('op-ada'), 'GET', `/requests/${requestId}`);
    expect(pending.json).toMatchObject({ request: { status: 'pending' } });
    const decided = await operatorCall(api, operators.token('op-ada'), 'POST', `/requests/${requestId}/decision`, { approve: true });
    expect(decided.status, JSON.stringify(decided.json)).toBe(200);
    const outcome = await result;
    expect(outcome.allowed).toBe(true);
  });

  it('routes by team: a request from a team no route names notifies nobody', async () => {
    const client = await agent('outsider');
    const first = await client.hook('pre-tool-use', { tool: { name: 'deploy', input: { env: 'staging' } } }, { waitForApproval: false });
    const requestId = first.block?.awaitingApproval?.requestId;
    expect(requestId).toBeDefined();
    // A later request from the routed team is announced; by then the outsider's, created before it, was routed too.
    const builder = await agent('builder');
    const second = await builder.hook('pre-tool-use', { tool: { name: 'deploy', input: { env: 'canary' } } }, { waitForApproval: false });
    const later = second.block?.awaitingApproval?.requestId;
    await eventually(() => (receivedFor('/ok', later!).length > 0 ? true : undefined), 'the later request announced');
    expect(receiver.received.filter((r) => r.body.includes(requestId!))).toEqual([]);
    expect((await deliveries()).deliveries.filter((d) => d.request_id === requestId)).toEqual([]);
  });

  it('the deliveries are for admins only', async () => {
    const { status } = await operatorCall(api, operators.token('op-vic'), 'GET', '/notifications/deliveries');
    expect(status).toBe(403);
  });
});
