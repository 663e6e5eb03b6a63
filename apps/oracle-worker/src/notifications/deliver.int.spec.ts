// Starts: a local HTTP receiver (node:http). The delivery processor against it: what counts as a
// failed attempt (a status other than 2xx, a redirect, which is not followed, no answer in time),
// what is recorded, and a webhook whose secret variable is missing.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UnrecoverableError } from 'bullmq';
import { NotificationJobDataSchema, type NotificationAttempt, type NotificationDeadLetter, type NotificationJobData } from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotificationDelivery } from './deliver.js';
import { deliveryIdOf } from './dispatcher.js';
import { verifyNotificationSignature } from './sign.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const hits: { path: string; signature: string | undefined; body: string }[] = [];
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      hits.push({ path: req.url ?? '', signature: req.headers['x-ahp-signature'] as string | undefined, body: Buffer.concat(chunks).toString('utf8') });
      if (req.url === '/redirect') res.writeHead(307, { location: `${base}/ok` }).end();
      else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end(), 2_000).unref();
      else res.writeHead(req.url === '/ok' ? 204 : 503).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function job(path: string, secretEnv = 'HOOK_SECRET'): NotificationJobData {
  return NotificationJobDataSchema.parse({
    delivery_id: deliveryIdOf(`req_${path.slice(1)}`, 'on-call'),
    channel: 'on-call',
    target: { type: 'webhook', url: `${base}${path}`, secret_env: secretEnv },
    request: { id: `req_${path.slice(1)}`, type: 'tool_approval', sender: 'builder', summary: 'Approve a call of tool deploy.', created_at: '2026-11-26T05:00:00.000Z' },
  });
}

function recorder() {
  const attempts: NotificationAttempt[] = [];
  const dead: NotificationDeadLetter[] = [];
  const delivered: string[] = [];
  const skipped: string[] = [];
  return {
    attempts,
    dead,
    delivered,
    skipped,
    store: {
      skipped: async (id: string) => void skipped.push(id),
      recordAttempt: async (_id: string, attempt: NotificationAttempt) => void attempts.push(attempt),
      delivered: async (id: string) => void delivered.push(id),
      deadLetter: async (letter: NotificationDeadLetter) => void dead.push(letter),
    },
  };
}

describe('createNotificationDelivery', () => {
  const env = { HOOK_SECRET: 'a-secret-of-the-receiver' };

  it('delivers on a 2xx, signed with the secret of secret_env', async () => {
    const r = recorder();
    await createNotificationDelivery({ store: r.store, env, timeoutMs: 1_000, logger: silent })(job('/ok'), { attempt: 1, attempts: 3 });
    expect(r.attempts).toEqual([expect.objectContaining({ attempt: 1, ok: true, status_code: 204 })]);
    expect(r.delivered).toHaveLength(1);
    const hit = hits.find((h) => h.path === '/ok')!;
    expect(verifyNotificationSignature(env.HOOK_SECRET, hit.body, hit.signature)).toBe(true);
  });

  it('fails an attempt on another status, and dead-letters it on the last one', async () => {
    const r = recorder();
    const deliver = createNotificationDelivery({ store: r.store, env, timeoutMs: 1_000, logger: silent });
    await expect(deliver(job('/busy'), { attempt: 1, attempts: 2 })).rejects.toThrow('the receiver answered 503');
    expect(r.dead).toEqual([]);
    await expect(deliver(job('/busy'), { attempt: 2, attempts: 2 })).rejects.toThrow('the receiver answered 503');
    expect(r.attempts.map((a) => [a.ok, a.status_code])).toEqual([
      [false, 503],
      [false, 503],
    ]);
    expect(r.dead).toEqual([expect.objectContaining({ request_id: 'req_busy', attempts: 2, error: 'the receiver answered 503' })]);
  });

  it('does not follow a redirect: the attempt fails with the 3xx', async () => {
    const r = recorder();
    await expect(createNotificationDelivery({ store: r.store, env, timeoutMs: 1_000, logger: silent })(job('/redirect'), { attempt: 1, attempts: 3 })).rejects.toThrow('answered 307');
    expect(hits.filter((h) => h.path === '/ok' && h.body.includes('req_redirect'))).toEqual([]);
  });

  it('gives up an attempt without an answer in time', async () => {
    const r = recorder();
    await expect(createNotificationDelivery({ store: r.store, env, timeoutMs: 200, logger: silent })(job('/slow'), { attempt: 1, attempts: 3 })).rejects.toThrow(/TimeoutError/);
    expect(r.attempts).toEqual([expect.objectContaining({ ok: false, error: expect.stringContaining('TimeoutError') })]);
  });

  it('does not announce a request that no longer waits, and announces one when that cannot be read', async () => {
    const r = recorder();
    const before = hits.length;
    await createNotificationDelivery({ store: r.store, env, timeoutMs: 1_000, logger: silent, stillWaiting: async () => false })(job('/ok'), { attempt: 2, attempts: 3 });
    expect(hits.length).toBe(before);
    expect(r.skipped).toEqual([job('/ok').delivery_id]);
    expect(r.attempts).toEqual([]);
    const unreadable = async (): Promise<boolean> => {
      throw new Error('redis is restarting');
    };
    await createNotificationDelivery({ store: r.store, env, timeoutMs: 1_000, logger: silent, stillWaiting: unreadable })(job('/ok'), { attempt: 1, attempts: 3 });
    expect(hits.length).toBe(before + 1);
    expect(r.delivered).toHaveLength(1);
  });

  it('refuses to send a webhook unsigned: a missing secret variable dead-letters it at once, without a request', async () => {
    const r = recorder();
    const before = hits.length;
    const failure = createNotificationDelivery({ store: r.store, env: {}, timeoutMs: 1_000, logger: silent })(job('/ok', 'NOT_SET'), { attempt: 1, attempts: 5 });
    await expect(failure).rejects.toBeInstanceOf(UnrecoverableError);
    expect(hits.length).toBe(before);
    expect(r.dead).toEqual([expect.objectContaining({ attempts: 1, error: expect.stringContaining('NOT_SET') })]);
  });

  it('a per-agent digest: counted when sent, sent although its request was settled, without decision links; skipped when it counts nothing', async () => {
    const digestJob = NotificationJobDataSchema.parse({
      ...job('/ok'),
      delivery_id: deliveryIdOf('digest\nbuilder\n1795694400000', 'on-call'),
      digest: { notified: 10, window_start: '2026-11-26T05:00:00.000Z', window_end: '2026-11-26T05:01:00.000Z' },
    });
    const r = recorder();
    const counts: string[] = [];
    const deliver = createNotificationDelivery({
      store: r.store,
      env,
      timeoutMs: 1_000,
      logger: silent,
      stillWaiting: async () => false,
      links: { secret: 'link-secret-for-the-digest-test-0123456789', ttlMs: 60_000 },
      digestCount: async (agentId, windowStartMs) => {
        counts.push(`${agentId}@${new Date(windowStartMs).toISOString()}`);
        return 520;
      },
    });
    const before = hits.length;
    await deliver(digestJob, { attempt: 1, attempts: 3 });
    expect(counts).toEqual(['builder@2026-11-26T05:00:00.000Z']);
    expect(r.delivered).toEqual([digestJob.delivery_id]);
    const body = JSON.parse(hits[before]!.body) as Record<string, unknown>;
    expect(body).toMatchObject({ event: 'request.waiting', digest: { notified: 10, more: 520 }, request: { id: 'req_ok', sender: 'builder' } });
    expect(body['links']).toBeUndefined();

    const none = recorder();
    await createNotificationDelivery({ store: none.store, env, timeoutMs: 1_000, logger: silent, digestCount: async () => 0 })(digestJob, { attempt: 1, attempts: 3 });
    expect(none.skipped).toEqual([digestJob.delivery_id]);
    expect(hits.length).toBe(before + 1);
  });
});
