/**
 * Requests whose redaction makes them longer, and records that do not parse, against the run's
 * Redis (real RequestStore and ToolApprovalStore over it; a recording logger): what is stored after
 * redaction must parse on every read, and one record that does not parse must never stop the
 * others being listed, decided or expired.
 */
import { LIMITS, TRUNCATED, createRequest, type ProtocolState } from '@ahp/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CORRUPT_REQUEST_RETRY_MS, StoreDataError, StoreInputError, createRedisStores, createToolApprovalStore, type RedisClient, type RedisStores, type StoreKeys } from '../src/index.js';
import { openClient, randomUUID, recordingLogger, testKeys, type RecordingLogger } from './support.js';

const T0 = Date.parse('2025-06-01T12:00:00.000Z');
const HOUR = 3_600_000;
/** 16 384 characters, the text limit; redacted it is 34 816. */
const POISON = 'token=a '.repeat(LIMITS.maxText / 8);

let redis: RedisClient;
let keys: StoreKeys;
let logger: RecordingLogger;
let stores: RedisStores;

beforeAll(async () => {
  redis = await openClient('store-test:request-poison');
});
afterAll(async () => {
  await redis.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  logger = recordingLogger();
  stores = createRedisStores({ redis, keys, logger, teamOf: (agentId) => (agentId === 'mallory' ? 'red' : 'blue') });
});

function planForOperators(requestId: string, sender: string, title: string, stepId = 's1'): ProtocolState {
  return createRequest({
    requestId,
    sender,
    target: { kind: 'operators' },
    now: new Date(T0).toISOString(),
    deadline: new Date(T0 + HOUR).toISOString(),
    type: 'plan_approval',
    payload: { plan: { title, steps: [{ id: stepId, description: 'do it', dependencies: [], status: 'pending', tools_expected: [] }] } },
  });
}

const ids = (states: readonly ProtocolState[]) => states.map((state) => state.request_id).sort();

describe('a request that redaction makes longer', () => {
  it('is stored within its limits: the operators queue, get and the expiry sweep keep working (plan title)', async () => {
    await stores.requests.create(planForOperators('req_legit', 'bob', 'deploy blue'), T0);
    const created = await stores.requests.create(planForOperators('req_poison', 'mallory', POISON), T0 + 1);
    expect(created).toMatchObject({ created: true });

    const title = (await stores.requests.get('req_poison'))?.state;
    expect(title?.type === 'plan_approval' && title.payload.plan.title).toHaveLength(LIMITS.maxText);
    expect(title?.type === 'plan_approval' && title.payload.plan.title.endsWith(TRUNCATED)).toBe(true);
    expect(title?.type === 'plan_approval' && title.payload.plan.title).not.toContain('token=a ');
    expect(ids(await stores.requests.list({ target: 'operators', status: 'pending' }))).toEqual(['req_legit', 'req_poison']);
    expect(ids(await stores.requests.list({ team: 'blue' }))).toEqual(['req_legit']);
    expect(await stores.requests.get('req_legit')).toMatchObject({ state: { status: 'pending' } });

    expect(ids(await stores.requests.expireDue(T0 + 2 * HOUR))).toEqual(['req_legit', 'req_poison']);
    expect(await stores.requests.list({ target: 'operators', status: 'pending' })).toEqual([]);
    expect(logger.lines.filter((line) => line.level === 'error')).toEqual([]);
  });

  it('is stored within its limits (a tool approval reason quoting a long command)', async () => {
    const approvals = createToolApprovalStore({ redis, keys, requests: stores.requests });
    const call = { agentId: 'claude-dev', sessionId: 's1', tool: 'Bash', input: { command: `rm -rf ./build ${POISON}` } };
    // The worker's reason: the rendered rule message (already redacted) cut to the limit — the cut
    // can leave `token=[redac`, which the store's redaction grows again.
    const rendered = `rm -rf ./build ${'token=[redacted] '.repeat(1100)}`.slice(0, LIMITS.maxText - 3);
    for (const reason of [POISON, rendered]) {
      const opened = await approvals.open({ hookId: randomUUID(), call, deadlineMs: HOUR, onExpiry: 'reject', reason, rules: ['pre-tool-use/guard/destructive-shell'], now: T0 });
      expect(opened.outcome).toBe('opened');
      const stored = opened.outcome === 'opened' ? await stores.requests.get(opened.state.request_id) : null;
      expect(stored?.state.type === 'tool_approval' && stored.state.payload.reason!.length).toBeLessThanOrEqual(LIMITS.maxText);
    }
    expect(await stores.requests.list({ target: 'operators', status: 'pending' })).toHaveLength(2);
    expect(await stores.requests.expireDue(T0 + 2 * HOUR)).toHaveLength(2);
  });

  it('keeps a decision feedback that redaction makes longer within its limit', async () => {
    await stores.requests.create(planForOperators('req_fb', 'bob', 'deploy blue'), T0);
    const outcome = await stores.requests.decide('req_fb', { request_id: 'req_fb', type: 'plan_approval_response', approve: false, feedback: POISON }, { kind: 'operator', id: 'op-1' }, T0 + 1);
    expect(outcome).toMatchObject({ outcome: 'applied' });
    const stored = await stores.requests.get('req_fb');
    expect(stored?.state.feedback).toHaveLength(LIMITS.maxText);
  });

  it('is refused with StoreInputError when redaction breaks a pattern (a step id cannot hold [redacted])', async () => {
    await expect(stores.requests.create(planForOperators('req_stepid', 'mallory', 'plan', 'password:x'), T0)).rejects.toBeInstanceOf(StoreInputError);
    expect(await stores.requests.get('req_stepid')).toBeNull();
  });
});

describe('a stored request that does not parse', () => {
  async function corrupt(requestId: string): Promise<void> {
    const key = keys.request(requestId);
    const state = JSON.parse((await redis.hGet(key, 'state'))!) as ProtocolState & { payload: { plan: { title: string } } };
    state.payload.plan.title = 'x'.repeat(LIMITS.maxText + 1);
    await redis.hSet(key, 'state', JSON.stringify(state));
  }

  it('is skipped and reported by list; the others are listed and decided', async () => {
    for (const id of ['req_a', 'req_bad', 'req_b']) await stores.requests.create(planForOperators(id, 'bob', `plan ${id}`), T0);
    await corrupt('req_bad');

    expect(ids(await stores.requests.list({ target: 'operators', status: 'pending' }))).toEqual(['req_a', 'req_b']);
    const reported = logger.lines.filter((line) => line.level === 'error');
    expect(reported).toHaveLength(1);
    expect(reported[0]?.fields).toMatchObject({ code: 'E_STORE_DATA', key: keys.request('req_bad'), requestId: 'req_bad', during: 'list' });

    await expect(stores.requests.get('req_bad')).rejects.toBeInstanceOf(StoreDataError);
    expect(await stores.requests.decide('req_a', { request_id: 'req_a', type: 'plan_approval_response', approve: true }, { kind: 'operator', id: 'op-1' }, T0 + 1)).toMatchObject({ outcome: 'applied' });
  });

  it('is skipped and reported by expireDue, which expires the others and tries it again an hour later', async () => {
    for (const id of ['req_a', 'req_bad', 'req_b']) await stores.requests.create(planForOperators(id, 'bob', `plan ${id}`), T0);
    await corrupt('req_bad');
    const now = T0 + 2 * HOUR;

    expect(ids(await stores.requests.expireDue(now))).toEqual(['req_a', 'req_b']);
    expect(logger.lines.filter((line) => line.level === 'error').map((line) => line.fields)).toEqual([expect.objectContaining({ key: keys.request('req_bad'), during: 'expireDue' })]);
    // Moved out of the way of later batches, still due (and reported) after the retry delay.
    expect(await redis.zScore(keys.requestDeadlines, 'req_bad')).toBe(now + CORRUPT_REQUEST_RETRY_MS);
    expect(await stores.requests.expireDue(now + 1, 1)).toEqual([]);
    expect(logger.lines.filter((line) => line.level === 'error')).toHaveLength(1);
  });

  it('does not fill the sweep: a batch of corrupt records ahead of a good one', async () => {
    for (let i = 0; i < 3; i++) {
      await stores.requests.create(planForOperators(`req_bad${i}`, 'bob', 'plan'), T0);
      await corrupt(`req_bad${i}`);
    }
    await stores.requests.create(planForOperators('req_good', 'bob', 'plan'), T0 + 1000);
    // A batch of 3 holds only the corrupt ones; the next sweep reaches the good one.
    expect(await stores.requests.expireDue(T0 + 2 * HOUR, 3)).toEqual([]);
    expect(ids(await stores.requests.expireDue(T0 + 2 * HOUR, 3))).toEqual(['req_good']);
  });

  it('a retention member that does not parse is reported and removed; the purge goes on', async () => {
    await redis.zAdd(keys.requestRetention, { score: T0, value: 'not json' });
    await stores.requests.create(planForOperators('req_a', 'bob', 'plan'), T0);
    expect(ids(await stores.requests.expireDue(T0 + 2 * HOUR))).toEqual(['req_a']);
    expect(await redis.zScore(keys.requestRetention, 'not json')).toBeNull();
    expect(logger.lines.filter((line) => line.level === 'error')).toHaveLength(1);
  });
});
