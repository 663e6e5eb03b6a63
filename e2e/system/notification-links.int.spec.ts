// Starts: a private Redis, one gateway process (with operator tokens), one oracle-worker process
// (a webhook secret, the console's address and a short escalation in its configuration), a local
// HTTP receiver (node:http in this file) and a real local SMTP server (smtp-server from npm).
//
// One-tap decisions from notifications, end to end: a tool call waits → the signed webhook and
// the email arrive, both carrying approve / reject links → an escalation tier reaches the admins'
// channel while the request still waits → a link does nothing without an operator's credentials,
// a viewer cannot use it, an approver's redeem decides, and the decision reaches the agent → the
// same link again, and the other link of the pair, say who decided; an expired or altered link
// is refused; a request decided before its escalation was due is not escalated. Dead delivery
// replay: a channel that always fails is replayed by an admin, audited, and retried. Deadlines are
// the request's own: a request whose deadline comes before its escalation expires as configured,
// its escalation never queued, while its failing channel is dead-lettered; a rule that allows on
// expiry (on_expiry: approve) lets the call through at its deadline while its failing channel is
// dead-lettered. Two escalation tiers: the team's lead (a channel bound to one operator) after
// 2 s, then the admins after 5 s, in that order; the lead's link works for the lead only. Web Push:
// an operator's subscription (saved through the operator API) receives the request encrypted to
// its browser keys at a local push endpoint stub (a real push service cannot be reached here),
// and the decision link inside, bound to that operator, decides.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { NotificationBodySchema, NotificationDeliveriesResponseSchema, PushPayloadSchema, VapidKeyResponseSchema, type NotificationDeliveriesResponse } from '@ahp/protocol';
import { connect, type AhpClient, type AwaitingApprovalInfo } from '@ahp/sdk';
import { createKeys, loadDecisionLinkSecret, newLinkId, signDecisionLink } from '@ahp/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConfigSystem, type ConfigSystem } from './config-support.js';
import { eventually, type System } from './harness.js';
import { browserKeys, decryptPush, subscriptionFor } from './push-stub.js';
import { operatorCall, type OperatorTokens } from './team-support.js';

const SECRET = 'e2e-links-webhook-secret-0123456789';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  raw: Buffer;
}

function startReceiver(): Promise<{ server: Server; port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), raw: Buffer.concat(chunks) });
      res.writeHead(path === '/down' ? 500 : path.startsWith('/push/') ? 201 : 200).end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port, received })));
}

interface Mail {
  to: string[];
  text: string;
}

function startSmtp(): Promise<{ server: SMTPServer; port: number; mails: Mail[] }> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        // Quoted-printable soft line breaks and '=' joined back, so links read whole.
        const text = Buffer.concat(chunks).toString('utf8').replace(/=\r\n/g, '').replace(/=3D/g, '=');
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), text });
        callback();
      });
    },
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.server.address() as AddressInfo).port, mails })));
}

function signatureValid(body: string, header: unknown): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', SECRET).update(body, 'utf8').digest('hex')}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const config = (port: number, smtpPort: number) => `version: 1
notifications:
  channels:
    on-call: { type: webhook, url: "http://127.0.0.1:${port}/ok", secret_env: AHP_E2E_WEBHOOK_SECRET }
    mail: { type: email, host: 127.0.0.1, port: ${smtpPort}, from: ahp@example.test, to: [ops@example.test] }
    admins: { type: slack, url: "http://127.0.0.1:${port}/admins" }
    down: { type: webhook, url: "http://127.0.0.1:${port}/down", secret_env: AHP_E2E_WEBHOOK_SECRET }
    phones: { type: push, operators: [op-ada] }
    lead: { type: slack, url: "http://127.0.0.1:${port}/lead", operator: op-bob }
  routes:
    - types: [tool_approval]
      teams: [payments]
      channels: [on-call, mail]
      escalate:
        - { after: 3s, channels: [admins], role: admin }
    - teams: [web]
      channels: [down]
    - teams: [mobile]
      channels: [phones]
    - teams: [ops]
      channels: [on-call]
      escalate:
        - { after: 2s, channels: [lead] }
        - { after: 5s, channels: [admins], role: admin }
hooks:
  pre-tool-use:
    oracles:
      - name: risky
        use: rules
        rules:
          - id: deploy
            condition: 'tool.name == "deploy"'
            require_approval: { deadline: 5m }
          - id: flash
            condition: 'tool.name == "flash"'
            require_approval: { deadline: 2s }
          - id: lenient
            condition: 'tool.name == "glow"'
            require_approval: { deadline: 2s, on_expiry: approve }
`;

/** The token of a link (`…/decide#<token>`). */
const tokenOf = (url: string) => url.slice(url.indexOf('#') + 1);

describe('decision links in notifications', () => {
  let started: ConfigSystem | undefined;
  let system: System;
  let operators: OperatorTokens;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let api: string;
  const clients: AhpClient[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    smtp = await startSmtp();
    started = await startConfigSystem({
      operators: [
        { id: 'op-ada', name: 'Ada', role: 'admin' },
        { id: 'op-bob', name: 'Bob', role: 'approver' },
        { id: 'op-vic', name: 'Vic', role: 'viewer' },
      ],
      live: config(receiver.port, smtp.port),
      name: 'notification-links',
      gateways: 1,
      workers: 1,
      agents: [
        { id: 'builder', name: 'Builder', team: 'payments' },
        { id: 'webber', name: 'Webber', team: 'web' },
        { id: 'mobi', name: 'Mobi', team: 'mobile' },
        { id: 'opsy', name: 'Opsy', team: 'ops' },
      ],
      workerEnv: {
        AHP_E2E_WEBHOOK_SECRET: SECRET,
        AHP_NOTIFY_ATTEMPTS: '2',
        AHP_NOTIFY_BACKOFF_MS: '50',
        AHP_CONSOLE_URL: 'http://console.example.test',
        // The push endpoint stub is plain http on loopback; push services are https.
        AHP_PUSH_ALLOW_HTTP: 'true',
      },
    });
    ({ system, operators, api } = started);
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await started?.stop();
    await new Promise((resolve) => receiver?.server.close(resolve));
    await new Promise<void>((resolve) => (smtp ? smtp.server.close(() => resolve()) : resolve()));
  });

  async function agent(id: string): Promise<AhpClient> {
    const client = await connect({ url: system.stack.gatewayUrls()[0]!, token: system.token(id), reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
    clients.push(client);
    return client;
  }

  async function deliveries(): Promise<NotificationDeliveriesResponse> {
    const { status, json } = await operatorCall(api, operators.token('op-ada'), 'GET', '/notifications/deliveries?limit=100');
    expect(status, JSON.stringify(json)).toBe(200);
    return NotificationDeliveriesResponseSchema.parse(json);
  }

  const webhooksFor = (path: string, requestId: string) => receiver.received.filter((r) => r.path === path && r.body.includes(requestId));

  it('webhook and email carry working links; the escalation reaches the admins; a redeem with an operator session decides and the agent gets it; reuse says who decided', async () => {
    const client = await agent('builder');
    const waits: AwaitingApprovalInfo[] = [];
    const result = client.hook('pre-tool-use', { tool: { name: 'deploy', input: { env: 'production' } } }, { onAwaitingApproval: (info) => waits.push(info) });
    const { requestId } = await eventually(() => waits[0], 'the hook to wait for an approval');

    // The webhook: signed, with both links to the console's /decide page.
    const [hook] = await eventually(() => (webhooksFor('/ok', requestId).length > 0 ? webhooksFor('/ok', requestId) : undefined), 'the webhook');
    expect(signatureValid(hook!.body, hook!.headers['x-ahp-signature'])).toBe(true);
    const body = NotificationBodySchema.parse(JSON.parse(hook!.body));
    expect(body.links?.approve).toMatch(/^http:\/\/console\.example\.test\/decide#v1\./);
    expect(body.links?.reject).toMatch(/^http:\/\/console\.example\.test\/decide#v1\./);

    // The email: to the configured address, with its own pair of links.
    const mail = await eventually(() => smtp.mails.find((m) => m.text.includes(requestId)), 'the email');
    expect(mail.to).toEqual(['ops@example.test']);
    const emailApprove = /Approve: (\S+)/.exec(mail.text)?.[1];
    const emailReject = /Reject: (\S+)/.exec(mail.text)?.[1];
    expect(emailApprove).toMatch(/\/decide#v1\./);
    expect(emailApprove).not.toBe(body.links?.approve);

    // The request still waits after 3 s: the admins' tier is notified, its links for admins only.
    const [escalated] = await eventually(() => (webhooksFor('/admins', requestId).length > 0 ? webhooksFor('/admins', requestId) : undefined), 'the escalation', 20_000);
    const slack = JSON.parse(escalated!.body) as { text: string; blocks: { type: string; elements?: { action_id: string; url: string }[] }[] };
    expect(slack.text).toContain('Still waiting (escalation 1)');
    const adminApprove = slack.blocks.find((b) => b.type === 'actions')?.elements?.find((e) => e.action_id === 'ahp-approve')?.url;
    expect(adminApprove).toBeDefined();

    // Without an operator's credentials a link is nothing; reading it does not use it.
    const anonymous = await fetch(`${api}/links/redeem`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: tokenOf(emailApprove!) }) });
    expect(anonymous.status).toBe(401);
    const inspected = await operatorCall(api, operators.token('op-bob'), 'POST', '/links/inspect', { token: tokenOf(emailApprove!) });
    expect(inspected.status, JSON.stringify(inspected.json)).toBe(200);
    expect(inspected.json).toMatchObject({ link: { request_id: requestId, decision: 'approve', channel: 'mail', tier: 0 }, request: { request_id: requestId, status: 'pending' } });
    // A viewer may look but not decide; an approver may not use the admins' tier link.
    expect((await operatorCall(api, operators.token('op-vic'), 'POST', '/links/redeem', { token: tokenOf(emailApprove!) })).status).toBe(403);
    const notAdmin = await operatorCall(api, operators.token('op-bob'), 'POST', '/links/redeem', { token: tokenOf(adminApprove!) });
    expect(notAdmin.status).toBe(403);
    expect(notAdmin.json).toMatchObject({ error: { code: 'E_FORBIDDEN', details: { link: 'not_yours' } } });

    // The approver's tap decides, as the approver; the agent's tool call goes ahead.
    const redeemed = await operatorCall(api, operators.token('op-bob'), 'POST', '/links/redeem', { token: tokenOf(emailApprove!) });
    expect(redeemed.status, JSON.stringify(redeemed.json)).toBe(200);
    expect(redeemed.json).toMatchObject({ outcome: 'applied', request: { request_id: requestId, status: 'approved', decided_by: 'op-bob' } });
    expect((await result).allowed).toBe(true);

    // The same link again, and the reject link of the pair: refused, naming who decided.
    for (const link of [emailApprove!, emailReject!, body.links!.reject]) {
      const again = await operatorCall(api, operators.token('op-ada'), 'POST', '/links/redeem', { token: tokenOf(link) });
      expect(again.status).toBe(409);
      expect(again.json).toMatchObject({ error: { code: 'E_CONFLICT', details: { status: 'approved', decided_by: 'op-bob' } } });
    }

    // The decision through a link is in the audit trail like any other, the token never.
    const audit = await operatorCall(api, operators.token('op-ada'), 'GET', `/audit?action=request.decide&limit=20`);
    expect(audit.status, JSON.stringify(audit.json)).toBe(200);
    const entries = JSON.stringify(audit.json);
    expect(entries).toContain('"via":"link"');
    expect(entries).not.toContain(tokenOf(emailApprove!));
  });

  it('an expired or altered link is refused, however valid its request', async () => {
    const client = await agent('builder');
    const first = await client.hook('pre-tool-use', { tool: { name: 'deploy', input: { env: 'canary' } } }, { waitForApproval: false });
    const requestId = first.block?.awaitingApproval?.requestId;
    expect(requestId).toBeDefined();
    // A link this deployment signed (its secret, as the gateway reads it) that expired a second ago.
    const secret = await loadDecisionLinkSecret(system.redis, createKeys({ prefix: system.keyPrefix }));
    const expired = signDecisionLink(secret, { v: 1, jti: newLinkId(), request_id: requestId!, decision: 'approve', channel: 'mail', tier: 0, exp: Math.floor(Date.now() / 1000) - 1 });
    const refusedExpired = await operatorCall(api, operators.token('op-ada'), 'POST', '/links/redeem', { token: expired });
    expect(refusedExpired.status).toBe(403);
    expect(refusedExpired.json).toMatchObject({ error: { code: 'E_FORBIDDEN', details: { link: 'expired' } } });
    const forged = signDecisionLink('not-the-deployment-secret-0123456789abcdef', { v: 1, jti: newLinkId(), request_id: requestId!, decision: 'approve', channel: 'mail', tier: 0, exp: Math.floor(Date.now() / 1000) + 600 });
    const refusedForged = await operatorCall(api, operators.token('op-ada'), 'POST', '/links/inspect', { token: forged });
    expect(refusedForged.json).toMatchObject({ error: { code: 'E_FORBIDDEN', details: { link: 'invalid' } } });
    const still = await operatorCall(api, operators.token('op-ada'), 'GET', `/requests/${requestId}`);
    expect(still.json).toMatchObject({ request: { status: 'pending' } });

    // Decided before its escalation was due: the admins' tier is skipped, not sent.
    const decided = await operatorCall(api, operators.token('op-ada'), 'POST', `/requests/${requestId}/decision`, { approve: false });
    expect(decided.status).toBe(200);
    const skipped = await eventually(async () => (await deliveries()).deliveries.find((d) => d.request_id === requestId && d.channel === 'admins' && d.status === 'skipped'), 'the escalation skipped', 20_000);
    expect(skipped).toMatchObject({ tier: 1, attempts: [] });
    expect(webhooksFor('/admins', requestId!)).toEqual([]);
  });

  it('an admin replays a dead delivery: it leaves the dead-letter list, is retried, and the replay is audited', async () => {
    const client = await agent('webber');
    const first = await client.hook('pre-tool-use', { tool: { name: 'deploy', input: { env: 'web' } } }, { waitForApproval: false });
    const requestId = first.block?.awaitingApproval?.requestId;
    const dead = await eventually(async () => (await deliveries()).dead_letters.find((d) => d.request_id === requestId), 'the dead letter');
    expect(webhooksFor('/down', requestId!)).toHaveLength(2);

    const byApprover = await operatorCall(api, operators.token('op-bob'), 'POST', `/notifications/dead-letters/${dead.delivery_id}/replay`);
    expect(byApprover.status).toBe(403);
    const replay = await operatorCall(api, operators.token('op-ada'), 'POST', `/notifications/dead-letters/${dead.delivery_id}/replay`);
    expect(replay.status, JSON.stringify(replay.json)).toBe(200);
    expect(replay.json).toEqual({ delivery_id: dead.delivery_id, request_id: requestId, channel: 'down', status: 'pending' });
    // Two more attempts on the still-failing receiver, then dead again.
    await eventually(() => (webhooksFor('/down', requestId!).length === 4 ? true : undefined), 'the replayed attempts');
    const after = await eventually(async () => {
      const listing = await deliveries();
      const record = listing.deliveries.find((d) => d.delivery_id === dead.delivery_id);
      return record?.status === 'dead' ? { listing, record } : undefined;
    }, 'the delivery dead again');
    expect(after.record).toMatchObject({ replayed_by: ['op-ada'] });
    expect(after.record.attempts).toHaveLength(4);
    const unknown = await operatorCall(api, operators.token('op-ada'), 'POST', `/notifications/dead-letters/00000000-0000-8000-8000-000000000000/replay`);
    expect(unknown.status).toBe(404);
    const audit = await operatorCall(api, operators.token('op-ada'), 'GET', `/audit?action=notification.replay`);
    expect(JSON.stringify(audit.json)).toContain(dead.delivery_id);
  });

  it('the deadline is unchanged by notifications: the request expires, a tier due after it is never queued, a failing channel still dead-letters', async () => {
    const payments = await agent('builder');
    const outcome = await payments.hook('pre-tool-use', { tool: { name: 'flash', input: {} } });
    // The rule's deadline (2 s) passed with nobody deciding: the call is not allowed.
    expect(outcome.allowed).toBe(false);
    const requestId = outcome.block?.awaitingApproval?.requestId ?? (await eventually(async () => {
      const listing = await deliveries();
      return listing.deliveries.find((d) => d.channel === 'on-call' && webhooksFor('/ok', d.request_id).some((r) => r.body.includes('"tool":"flash"')))?.request_id;
    }, 'the flash request'));
    const state = await operatorCall(api, operators.token('op-ada'), 'GET', `/requests/${requestId}`);
    expect(state.json).toMatchObject({ request: { status: 'expired' } });
    const listing = await deliveries();
    expect(listing.deliveries.filter((d) => d.request_id === requestId).map((d) => [d.channel, d.tier ?? 0])).toEqual(expect.arrayContaining([['on-call', 0], ['mail', 0]]));
    expect(listing.deliveries.find((d) => d.request_id === requestId && d.channel === 'admins')).toBeUndefined();

    const web = await agent('webber');
    const failing = await web.hook('pre-tool-use', { tool: { name: 'flash', input: {} } });
    expect(failing.allowed).toBe(false);
    const dead = await eventually(async () => (await deliveries()).dead_letters.find((d) => d.channel === 'down' && webhooksFor('/down', d.request_id).some((r) => r.body.includes('"tool":"flash"'))), 'the failing channel dead-lettered');
    expect((await operatorCall(api, operators.token('op-ada'), 'GET', `/requests/${dead.request_id}`)).json).toMatchObject({ request: { status: 'expired' } });
  });

  it("two escalation tiers: the team's lead first, then the admins; the lead's link works for the lead only", async () => {
    const client = await agent('opsy');
    const waits: AwaitingApprovalInfo[] = [];
    const result = client.hook('pre-tool-use', { tool: { name: 'deploy', input: { env: 'ops' } } }, { onAwaitingApproval: (info) => waits.push(info) });
    const { requestId } = await eventually(() => waits[0], 'the hook to wait for an approval');
    const fromTiers = () => receiver.received.filter((r) => (r.path === '/lead' || r.path === '/admins') && r.body.includes(requestId));
    const both = await eventually(() => (fromTiers().length === 2 ? fromTiers() : undefined), 'both escalation tiers', 30_000);
    // In order: the lead's tier (2 s), then the admins' (5 s), each saying which escalation it is.
    expect(both.map((r) => r.path)).toEqual(['/lead', '/admins']);
    const [lead, admins] = both.map((r) => JSON.parse(r.body) as { text: string; blocks: { type: string; elements?: { action_id: string; url: string }[] }[] });
    expect(lead!.text).toContain('Still waiting (escalation 1)');
    expect(admins!.text).toContain('Still waiting (escalation 2)');
    const tiers = (await deliveries()).deliveries.filter((d) => d.request_id === requestId).map((d) => [d.channel, d.tier ?? 0, d.status]);
    expect(tiers).toEqual(expect.arrayContaining([['on-call', 0, 'delivered'], ['lead', 1, 'delivered'], ['admins', 2, 'delivered']]));

    // The lead's link is bound to op-bob: even an admin who may decide the request cannot use it.
    const leadApprove = lead!.blocks.find((b) => b.type === 'actions')?.elements?.find((e) => e.action_id === 'ahp-approve')?.url;
    expect(leadApprove).toBeDefined();
    const inspected = await operatorCall(api, operators.token('op-bob'), 'POST', '/links/inspect', { token: tokenOf(leadApprove!) });
    expect(inspected.json).toMatchObject({ link: { request_id: requestId, channel: 'lead', tier: 1, operator: 'op-bob' } });
    const byAdmin = await operatorCall(api, operators.token('op-ada'), 'POST', '/links/redeem', { token: tokenOf(leadApprove!) });
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.json).toMatchObject({ error: { code: 'E_FORBIDDEN', details: { link: 'not_yours' } } });
    const byLead = await operatorCall(api, operators.token('op-bob'), 'POST', '/links/redeem', { token: tokenOf(leadApprove!) });
    expect(byLead.status, JSON.stringify(byLead.json)).toBe(200);
    expect(byLead.json).toMatchObject({ outcome: 'applied', request: { request_id: requestId, status: 'approved', decided_by: 'op-bob' } });
    expect((await result).allowed).toBe(true);
  });

  it('allow on expiry: a rule with on_expiry approve lets the call through at its deadline while its failing channel is dead-lettered', async () => {
    const web = await agent('webber');
    const waits: AwaitingApprovalInfo[] = [];
    // Nobody decides: at the rule's 2 s deadline the request expires and, as the rule says, allows.
    const outcome = await web.hook('pre-tool-use', { tool: { name: 'glow', input: {} } }, { onAwaitingApproval: (info) => waits.push(info) });
    expect(outcome.allowed).toBe(true);
    const requestId = waits[0]?.requestId;
    expect(requestId).toBeDefined();
    expect((await operatorCall(api, operators.token('op-ada'), 'GET', `/requests/${requestId}`)).json).toMatchObject({ request: { status: 'expired' } });
    const dead = await eventually(async () => (await deliveries()).dead_letters.find((d) => d.request_id === requestId), 'the failing channel dead-lettered');
    expect(dead).toMatchObject({ channel: 'down', attempts: 2 });
    expect(webhooksFor('/down', requestId!)).toHaveLength(2);
  });

  it("Web Push: the operator's subscribed browser gets the request encrypted to it, and its link, bound to that operator, decides", async () => {
    const key = await operatorCall(api, operators.token('op-ada'), 'GET', '/push/vapid-key');
    const { public_key: vapidKey } = VapidKeyResponseSchema.parse(key.json);
    const browser = browserKeys();
    const subscription = subscriptionFor(`http://127.0.0.1:${receiver.port}/push/ada-phone`, browser);
    const saved = await operatorCall(api, operators.token('op-ada'), 'POST', '/push/subscriptions', subscription);
    expect(saved.status, JSON.stringify(saved.json)).toBe(200);
    expect(saved.json).toMatchObject({ subscriptions: [{ endpoint: subscription.endpoint }] });
    // Subscriptions are per operator: Bob sees none of Ada's.
    expect((await operatorCall(api, operators.token('op-bob'), 'GET', '/push/subscriptions')).json).toEqual({ subscriptions: [] });

    const client = await agent('mobi');
    const waits: AwaitingApprovalInfo[] = [];
    const result = client.hook('pre-tool-use', { tool: { name: 'deploy', input: { env: 'mobile' } } }, { onAwaitingApproval: (info) => waits.push(info) });
    const { requestId } = await eventually(() => waits[0], 'the hook to wait for an approval');
    const pushed = await eventually(() => receiver.received.find((r) => r.path === '/push/ada-phone'), 'the push message');
    expect(pushed.headers['content-encoding']).toBe('aes128gcm');
    expect(String(pushed.headers['authorization'])).toContain(`k=${vapidKey}`);
    expect(pushed.raw.includes(Buffer.from(requestId))).toBe(false);
    const payload = PushPayloadSchema.parse(JSON.parse(decryptPush(pushed.raw, browser)));
    expect(payload).toMatchObject({ request_id: requestId, title: 'A tool call waits for approval: mobi (mobile)' });
    const approve = tokenOf(payload.links!.approve);

    const bob = await operatorCall(api, operators.token('op-bob'), 'POST', '/links/redeem', { token: approve });
    expect(bob.json).toMatchObject({ error: { code: 'E_FORBIDDEN', details: { link: 'not_yours' } } });
    const ada = await operatorCall(api, operators.token('op-ada'), 'POST', '/links/redeem', { token: approve });
    expect(ada.status, JSON.stringify(ada.json)).toBe(200);
    expect((await result).allowed).toBe(true);

    const removed = await operatorCall(api, operators.token('op-ada'), 'POST', '/push/subscriptions/remove', { endpoint: subscription.endpoint });
    expect(removed.json).toEqual({ subscriptions: [] });
  });
});
