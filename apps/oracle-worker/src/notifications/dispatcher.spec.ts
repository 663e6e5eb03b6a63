/**
 * Routing with the per-agent throttle: the dispatcher against a queue and a delivery store that
 * record what they are given, and a throttle in memory that keeps notification-throttle's
 * contract (a place per request in its window, the same place when routed again; its Redis side
 * is tested in libs/store/test/notification-throttle.int.spec.ts).
 */
import { NotificationsConfigSchema, createRequest, type NotificationJobInput, type ProtocolState } from '@ahp/protocol';
import { createKeys, type NotificationThrottle, type RedisClient, type RequestEventRecord, type ThrottleAdmission } from '@ahp/store';
import { describe, expect, it } from 'vitest';
import { deliveryIdOf, dispatchRequestEvent } from './dispatcher.js';

const WINDOW = 60_000;
const T0 = Date.parse('2026-11-26T12:00:00.000Z');
const silent = { debug() {}, info() {}, warn() {}, error() {} };

function memoryThrottle(maxPerWindow: number): Pick<NotificationThrottle, 'admit' | 'maxPerWindow'> {
  const places = new Map<string, Map<string, number>>();
  return {
    maxPerWindow,
    async admit(agentId, requestId, createdMs): Promise<ThrottleAdmission> {
      const windowStartMs = createdMs - (createdMs % WINDOW);
      const window = places.get(`${agentId}:${windowStartMs}`) ?? new Map<string, number>();
      places.set(`${agentId}:${windowStartMs}`, window);
      const position = window.get(requestId) ?? window.size;
      window.set(requestId, position);
      return { kind: position < maxPerWindow ? 'notify' : position === maxPerWindow ? 'digest' : 'counted', position, windowStartMs, windowEndMs: windowStartMs + WINDOW };
    },
  };
}

const config = NotificationsConfigSchema.parse({
  channels: { 'on-call': { type: 'webhook', url: 'https://hooks.example.com/ahp', secret_env: 'HOOK_SECRET' } },
  routes: [{ types: ['tool_approval'], channels: ['on-call'] }],
});

function setup() {
  const queued: { job: NotificationJobInput; delayMs: number }[] = [];
  const opened: string[] = [];
  const options = {
    // The request's teams, as readRequestTeams reads them.
    redis: { hGet: async () => '["web"]' } as unknown as RedisClient,
    keys: createKeys({ prefix: 'ahp:test' }),
    queue: { enqueue: async (job: NotificationJobInput, opts: { delayMs?: number } = {}) => void queued.push({ job, delayMs: opts.delayMs ?? 0 }) },
    store: { open: async (meta: { delivery_id: string }) => void opened.push(meta.delivery_id) },
    active: () => ({ config, version: 3 }),
    consoleUrl: 'https://ahp.example.com',
    logger: silent,
    now: () => T0 + 8_000,
    throttle: memoryThrottle(10),
  };
  return { queued, opened, dispatch: (event: RequestEventRecord) => dispatchRequestEvent(event, options) };
}

function created(requestId: string, sender: string, atMs: number): RequestEventRecord {
  const state: ProtocolState = createRequest({
    requestId,
    sender,
    target: { kind: 'operators' },
    now: new Date(atMs).toISOString(),
    deadline: new Date(atMs + 3_600_000).toISOString(),
    type: 'tool_approval',
    payload: { tool: 'Bash', input: { command: `rm -rf /tmp/${requestId}` }, input_digest: 'a'.repeat(64) },
  });
  return { id: `${atMs}-0`, event: 'created', requestId, type: 'tool_approval', status: 'pending', at: state.created_at, actor: { kind: 'agent', id: sender }, state };
}

describe('dispatchRequestEvent with the per-agent throttle', () => {
  it('a flood of one agent: the first 10 of the window one by one, then one digest at the window end, the rest nothing; another agent is still notified', async () => {
    const { queued, dispatch } = setup();
    for (let i = 0; i < 530; i++) await dispatch(created(`req_flood-${i}`, 'mallory', T0 + Math.floor(i / 100)));
    await dispatch(created('req_victim', 'alice', T0 + 7_000));

    const individual = queued.filter(({ job }) => job.digest === undefined);
    expect(individual.map(({ job }) => job.request.id)).toEqual([...Array.from({ length: 10 }, (_, i) => `req_flood-${i}`), 'req_victim']);
    const digests = queued.filter(({ job }) => job.digest !== undefined);
    expect(digests).toHaveLength(1);
    expect(digests[0]).toMatchObject({
      delayMs: WINDOW - 8_000,
      job: { channel: 'on-call', tier: 0, request: { id: 'req_flood-10', sender: 'mallory' }, digest: { notified: 10, window_start: new Date(T0).toISOString(), window_end: new Date(T0 + WINDOW).toISOString() } },
    });
    expect(digests[0]?.job.delivery_id).toBe(deliveryIdOf(`digest\nmallory\n${T0}`, 'on-call'));
  });

  it('an event routed again (a worker died before acknowledging it) queues the same jobs: the same delivery ids, no second digest', async () => {
    const { queued, dispatch } = setup();
    const events = Array.from({ length: 12 }, (_, i) => created(`req_r-${i}`, 'mallory', T0 + i));
    for (const event of events) await dispatch(event);
    for (const event of events) await dispatch(event);
    const ids = queued.map(({ job }) => job.delivery_id);
    expect(new Set(ids).size).toBe(11);
    expect(queued.filter(({ job }) => job.digest !== undefined).map(({ job }) => job.delivery_id)).toEqual([ids[10], ids[10]]);
  });
});
