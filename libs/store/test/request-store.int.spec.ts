/**
 * RequestStore against the run's Redis: the state machine of docs/spec/teams.md#request-state-machine made atomic (create, decide,
 * cancel, expire), the inbox messages each transition produces, list, retention, the audit stream
 * and the plan gate in open-hook.
 */
import { createRequest, type CreateRequestInput, type InboxMessage, type ProtocolResponse, type ProtocolState, type RequestActor, type ResponseType } from '@ahp/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  RequestForbiddenError,
  StoreDataError,
  StoreInputError,
  createRedisStores,
  readRequestEvents,
  type OpenHookInput,
  type RedisClient,
  type RedisStores,
  type StoreKeys,
} from '../src/index.js';
import { openClient, randomUUID, testKeys } from './support.js';

const T0 = Date.parse('2025-06-01T12:00:00.000Z');
const RETENTION_MS = 3_600_000;
const TEAMS: Record<string, string> = { lead: 'red', alice: 'red', bob: 'red', carol: 'blue' };
const OP1: RequestActor = { kind: 'operator', id: 'op-1' };
const OP2: RequestActor = { kind: 'operator', id: 'op-2' };

let redis: RedisClient;
let other: RedisClient;
let keys: StoreKeys;
let stores: RedisStores;

beforeAll(async () => {
  [redis, other] = await Promise.all([openClient('store-test:requests'), openClient('store-test:requests-2')]);
});
afterAll(async () => {
  await Promise.all([redis.close(), other.close()]);
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  stores = storesOn(redis);
});

function storesOn(client: RedisClient): RedisStores {
  return createRedisStores({ redis: client, keys, requestRetentionMs: RETENTION_MS, teamOf: (agentId) => TEAMS[agentId] });
}

const at = (ms: number) => new Date(ms).toISOString();

type Overrides = Partial<Pick<CreateRequestInput, 'sender' | 'target' | 'deadline'>> & { now?: number };

function shutdown(requestId: string, overrides: Overrides = {}): ProtocolState {
  return createRequest({
    requestId,
    sender: overrides.sender ?? 'lead',
    target: overrides.target ?? { kind: 'agent', agent: 'alice' },
    now: at(overrides.now ?? T0),
    ...(overrides.deadline === undefined ? {} : { deadline: overrides.deadline }),
    type: 'shutdown',
    payload: { reason: 'the sprint is over' },
  });
}

function plan(requestId: string, overrides: Overrides = {}): ProtocolState {
  return createRequest({
    requestId,
    sender: overrides.sender ?? 'alice',
    target: overrides.target ?? { kind: 'agent', agent: 'lead' },
    now: at(overrides.now ?? T0),
    ...(overrides.deadline === undefined ? {} : { deadline: overrides.deadline }),
    type: 'plan_approval',
    payload: { plan: { title: 'Speed up the DB', steps: [{ id: 's1', description: 'add an index', dependencies: [], status: 'pending', tools_expected: ['Bash'] }] } },
  });
}

function toolApproval(requestId: string, input: Record<string, unknown>): ProtocolState {
  return createRequest({
    requestId,
    sender: 'bob',
    target: { kind: 'agent', agent: 'lead' },
    now: at(T0),
    type: 'tool_approval',
    payload: { tool: 'Bash', input: input as never, input_digest: 'a'.repeat(64) },
  });
}

function answer(requestId: string, type: ResponseType, approve: boolean, feedback?: string): ProtocolResponse {
  return { request_id: requestId, type, approve, ...(feedback === undefined ? {} : { feedback }) };
}

async function inbox(agentId: string): Promise<InboxMessage[]> {
  return (await stores.inboxes.pending(agentId)).map((entry) => entry.message);
}

describe('create and get', () => {
  it('stores a pending request with its history, and answers a re-sent create with the stored one', async () => {
    const state = shutdown('req_1');
    expect(await stores.requests.create(state, T0)).toEqual({ created: true, state });
    expect(await stores.requests.get('req_1')).toEqual({
      state,
      history: [{ at: at(T0), actor: { kind: 'agent', id: 'lead' }, event: 'created', status: 'pending' }],
    });

    // The SDK re-sends after a reconnect: same sender, type and target.
    expect(await stores.requests.create(state, T0 + 1_000)).toEqual({ created: false, state });
    // The same id from someone else is refused.
    expect(await stores.requests.create(shutdown('req_1', { sender: 'bob' }), T0)).toEqual({ outcome: 'conflict' });
    expect((await stores.requests.get('req_1'))?.history).toHaveLength(1);
    expect(await stores.requests.get('req_unknown')).toBeNull();
  });

  it("puts the <type>_request message in an agent target's inbox, and none for operators", async () => {
    const state = plan('req_plan', { deadline: at(T0 + 60_000) });
    await stores.requests.create(state, T0);
    const [message, ...rest] = await inbox('lead');
    expect(rest).toEqual([]);
    expect(message).toMatchObject({
      from: 'alice',
      to: 'lead',
      type: 'plan_approval_request',
      content: 'Speed up the DB',
      sent_at: at(T0),
      metadata: { request_id: 'req_plan', payload: state.payload, deadline: at(T0 + 60_000) },
    });

    await stores.requests.create(shutdown('req_ops', { sender: 'bob', target: { kind: 'operators' } }), T0);
    expect(await redis.exists([keys.inbox('operators'), keys.inbox('bob')])).toBe(0);
    expect(await inbox('lead')).toHaveLength(1);
  });

  it('leaves a payload too deep for the metadata out of the message, and says so', async () => {
    let input: Record<string, unknown> = { leaf: true };
    for (let depth = 0; depth < 30; depth++) input = { nested: input };
    await stores.requests.create(toolApproval('req_deep', input), T0);
    const [message] = await inbox('lead');
    expect(message?.metadata).toEqual({ request_id: 'req_deep', payload_omitted: true });
    expect((await stores.requests.get('req_deep'))?.state.payload).toMatchObject({ input });
  });

  it('refuses a state that is invalid or not pending', async () => {
    await expect(stores.requests.create({ ...shutdown('req_1'), sender: 'not an id' }, T0)).rejects.toBeInstanceOf(StoreInputError);
    const decided: ProtocolState = { ...shutdown('req_2'), status: 'approved', decided_by: 'alice', decided_at: at(T0) };
    await expect(stores.requests.create(decided, T0)).rejects.toThrow(/pending/);
  });
});

describe('decide', () => {
  it('applies the first decision, acknowledges a repeat, refuses a contrary one with the winner', async () => {
    await stores.requests.create(shutdown('req_1'), T0);
    const approved = await stores.requests.decide('req_1', answer('req_1', 'shutdown_response', true, 'bye'), { kind: 'agent', id: 'alice' }, T0 + 1_000);
    expect(approved).toEqual({
      outcome: 'applied',
      state: { ...shutdown('req_1'), status: 'approved', decided_by: 'alice', decided_at: at(T0 + 1_000), updated_at: at(T0 + 1_000), feedback: 'bye' },
    });

    const again = await stores.requests.decide('req_1', answer('req_1', 'shutdown_response', true), OP1, T0 + 2_000);
    expect(again).toEqual({ outcome: 'already_decided', state: approved.outcome === 'applied' ? approved.state : null });

    const contrary = await stores.requests.decide('req_1', answer('req_1', 'shutdown_response', false), OP1, T0 + 3_000);
    expect(contrary.outcome).toBe('conflict');
    expect(contrary.outcome === 'conflict' && contrary.state).toMatchObject({ status: 'approved', decided_by: 'alice' });

    const history = (await stores.requests.get('req_1'))?.history;
    expect(history?.map((entry) => [entry.event, entry.status, entry.actor.id])).toEqual([
      ['created', 'pending', 'lead'],
      ['approved', 'approved', 'alice'],
      ['refused', 'approved', 'op-1'],
    ]);
    expect(history?.[1]?.feedback).toBe('bye');
  });

  it('sends the sender the matching response and withdraws the unacknowledged request message', async () => {
    await stores.requests.create(plan('req_plan'), T0);
    expect(await inbox('lead')).toHaveLength(1);
    await stores.requests.decide('req_plan', answer('req_plan', 'plan_approval_response', false, 'split step 1'), { kind: 'agent', id: 'lead' }, T0 + 1_000);

    expect(await inbox('lead')).toEqual([]);
    const [response, ...rest] = await inbox('alice');
    expect(rest).toEqual([]);
    expect(response).toMatchObject({
      from: 'lead',
      to: 'alice',
      type: 'plan_approval_response',
      content: 'split step 1',
      sent_at: at(T0 + 1_000),
      metadata: { request_id: 'req_plan', approve: false, status: 'rejected', decided_by: 'lead', feedback: 'split step 1' },
    });
  });

  it('lets exactly one of two concurrent contrary decisions win, from two clients, every round', async () => {
    const second = storesOn(other);
    for (let round = 0; round < 50; round++) {
      const id = `req_race_${round}`;
      await stores.requests.create(shutdown(id, { target: { kind: 'operators' } }), T0);
      const [a, b] = await Promise.all([
        stores.requests.decide(id, answer(id, 'shutdown_response', true), OP1, T0 + 1_000),
        second.requests.decide(id, answer(id, 'shutdown_response', false), OP2, T0 + 1_000),
      ]);
      const outcomes = [a.outcome, b.outcome].sort();
      expect(outcomes).toEqual(['applied', 'conflict']);
      const winner = a.outcome === 'applied' ? a : b;
      const loser = a.outcome === 'applied' ? b : a;
      expect(loser.outcome === 'conflict' && loser.state).toEqual(winner.outcome === 'applied' && winner.state);
      expect((await stores.requests.get(id))?.state.decided_by).toBe(winner === a ? 'op-1' : 'op-2');
    }
    // One response per request reached the sender: no transition was written twice.
    expect(await stores.inboxes.pending('lead', undefined, 1000)).toHaveLength(50);
  });

  it('refuses a response of the wrong type and changes nothing', async () => {
    await stores.requests.create(shutdown('req_1'), T0);
    const outcome = await stores.requests.decide('req_1', answer('req_1', 'plan_approval_response', true), { kind: 'agent', id: 'alice' }, T0 + 1_000);
    expect(outcome).toEqual({ outcome: 'type_mismatch', state: shutdown('req_1'), expected: 'shutdown_response' });
    const stored = await stores.requests.get('req_1');
    expect(stored?.state.status).toBe('pending');
    expect(stored?.history.at(-1)).toMatchObject({ event: 'refused', status: 'pending', feedback: expect.stringContaining('expected shutdown_response') });
  });

  it('answers not_found for an unknown id and refuses invalid input', async () => {
    expect(await stores.requests.decide('req_nope', answer('req_nope', 'shutdown_response', true), OP1, T0)).toEqual({ outcome: 'not_found' });
    expect(await stores.requests.cancel('req_nope', OP1, T0)).toEqual({ outcome: 'not_found' });
    await stores.requests.create(shutdown('req_1'), T0);
    await expect(stores.requests.decide('req_1', answer('req_2', 'shutdown_response', true), OP1, T0)).rejects.toBeInstanceOf(StoreInputError);
    await expect(stores.requests.decide('req_1', answer('req_1', 'shutdown_response', true), { kind: 'person', id: 'x' } as never, T0)).rejects.toBeInstanceOf(
      StoreInputError,
    );
  });

  it('expires a request decided after its deadline and tells the caller it is no longer pending', async () => {
    await stores.requests.create(shutdown('req_1', { deadline: at(T0 + 10_000) }), T0);
    const late = await stores.requests.decide('req_1', answer('req_1', 'shutdown_response', true), OP1, T0 + 10_000);
    expect(late.outcome).toBe('not_pending');
    expect(late.outcome === 'not_pending' && late.state).toMatchObject({ status: 'expired', decided_at: at(T0 + 10_000) });
    expect(await stores.requests.expireDue(T0 + 20_000)).toEqual([]);
  });
});

describe('cancel', () => {
  it('lets only the sender cancel, then refuses decisions', async () => {
    await stores.requests.create(shutdown('req_1'), T0);
    const forbidden = await stores.requests.cancel('req_1', { kind: 'agent', id: 'alice' }, T0 + 1_000).catch((error: unknown) => error);
    expect(forbidden).toBeInstanceOf(RequestForbiddenError);
    expect(forbidden).toMatchObject({ code: 'E_REQUEST_FORBIDDEN', requestId: 'req_1', actorId: 'alice', state: { status: 'pending' } });

    const cancelled = await stores.requests.cancel('req_1', { kind: 'agent', id: 'lead' }, T0 + 2_000);
    expect(cancelled.outcome === 'applied' && cancelled.state).toMatchObject({ status: 'cancelled', decided_by: 'lead' });
    expect((await stores.requests.cancel('req_1', { kind: 'agent', id: 'lead' }, T0 + 3_000)).outcome).toBe('not_pending');
    expect((await stores.requests.decide('req_1', answer('req_1', 'shutdown_response', true), OP1, T0 + 3_000)).outcome).toBe('not_pending');

    // The addressee learns that the request is over (its request message is withdrawn, a notice
    // takes its place); the sender, who did it, gets no message about its own act.
    expect(await inbox('alice')).toEqual([
      expect.objectContaining({
        type: 'shutdown_response',
        from: 'lead',
        to: 'alice',
        content: 'cancelled',
        metadata: { request_id: 'req_1', approve: false, status: 'cancelled', decided_by: 'lead', feedback: 'cancelled' },
      }),
    ]);
    expect(await inbox('lead')).toEqual([]);
  });
});

describe('expireDue', () => {
  it('expires due requests once, however many gateways run it at the same time', async () => {
    await stores.requests.create(shutdown('req_due', { deadline: at(T0 + 60_000) }), T0);
    await stores.requests.create(shutdown('req_later', { deadline: at(T0 + 120_000) }), T0);
    await stores.requests.create(shutdown('req_never'), T0);

    expect(await stores.requests.expireDue(T0 + 59_999)).toEqual([]);
    const [a, b] = await Promise.all([stores.requests.expireDue(T0 + 60_000), storesOn(other).requests.expireDue(T0 + 60_000)]);
    const expired = [...a, ...b];
    expect(expired).toEqual([{ ...shutdown('req_due', { deadline: at(T0 + 60_000) }), status: 'expired', updated_at: at(T0 + 60_000), decided_at: at(T0 + 60_000) }]);
    expect(await stores.requests.expireDue(T0 + 60_000)).toEqual([]);

    expect((await stores.requests.get('req_later'))?.state.status).toBe('pending');
    expect((await stores.requests.get('req_due'))?.history.at(-1)).toMatchObject({ event: 'expired', actor: { kind: 'system', id: 'system' } });
    expect(await inbox('lead')).toEqual([
      expect.objectContaining({
        type: 'shutdown_response',
        from: 'system',
        content: 'expired',
        metadata: { request_id: 'req_due', approve: false, status: 'expired', feedback: 'expired' },
      }),
    ]);
  });

  it('keeps a settled request for the retention time, then purges it; a pending one never expires', async () => {
    await stores.requests.create(shutdown('req_old'), T0);
    await stores.requests.create(shutdown('req_open'), T0);
    await stores.requests.decide('req_old', answer('req_old', 'shutdown_response', true), OP1, T0);

    expect(await redis.pTTL(keys.request('req_open'))).toBe(-1);
    const ttl = await redis.pTTL(keys.request('req_old'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(RETENTION_MS);
    expect(await redis.pTTL(keys.requestHistory('req_old'))).toBeGreaterThan(0);

    await stores.requests.expireDue(T0 + RETENTION_MS - 1);
    expect((await stores.requests.list({})).map((state) => state.request_id).sort()).toEqual(['req_old', 'req_open']);

    await stores.requests.expireDue(T0 + RETENTION_MS);
    expect((await stores.requests.list({})).map((state) => state.request_id)).toEqual(['req_open']);
    expect(await stores.requests.get('req_old')).toBeNull();
    for (const index of [keys.requestsAll, keys.requestsByStatus('approved'), keys.requestsByAgent('alice'), keys.requestsByTeam('red')]) {
      expect(await redis.zRange(index, 0, -1)).not.toContain('req_old');
    }
    expect(await redis.zCard(keys.requestRetention)).toBe(0);
  });
});

describe('list', () => {
  it('filters by status, type, agent, team and target, newest first', async () => {
    await stores.requests.create(shutdown('req_a', { now: T0 }), T0);
    await stores.requests.create(plan('req_b', { now: T0 + 1 }), T0 + 1);
    await stores.requests.create(shutdown('req_c', { now: T0 + 2, sender: 'carol', target: { kind: 'operators' } }), T0 + 2);
    await stores.requests.create(plan('req_d', { now: T0 + 3, sender: 'bob' }), T0 + 3);
    await stores.requests.decide('req_b', answer('req_b', 'plan_approval_response', true), { kind: 'agent', id: 'lead' }, T0 + 4);

    const ids = async (filter: Parameters<RedisStores['requests']['list']>[0]) => (await stores.requests.list(filter)).map((state) => state.request_id);
    expect(await ids({})).toEqual(['req_d', 'req_c', 'req_b', 'req_a']);
    expect(await ids({ limit: 2 })).toEqual(['req_d', 'req_c']);
    // Oldest first (the console's approval queue): the earliest opened are the ones a limit keeps.
    expect(await ids({ status: 'pending', order: 'oldest', limit: 2 })).toEqual(['req_a', 'req_c']);
    expect(await ids({ order: 'oldest' })).toEqual(['req_a', 'req_b', 'req_c', 'req_d']);
    expect(await ids({ status: 'pending' })).toEqual(['req_d', 'req_c', 'req_a']);
    expect(await ids({ status: 'approved' })).toEqual(['req_b']);
    expect(await ids({ type: 'plan_approval' })).toEqual(['req_d', 'req_b']);
    expect(await ids({ agent: 'alice' })).toEqual(['req_b', 'req_a']);
    expect(await ids({ team: 'blue' })).toEqual(['req_c']);
    expect(await ids({ team: 'red', type: 'shutdown' })).toEqual(['req_a']);
    expect(await ids({ target: 'operators' })).toEqual(['req_c']);
    expect(await ids({ target: 'lead', status: 'pending' })).toEqual(['req_d']);
    expect(await ids({ agent: 'nobody' })).toEqual([]);
  });


  it("takes teams from the parties' presence entries by default", async () => {
    const plain = createRedisStores({ redis, keys });
    const now = at(T0);
    await plain.presence.connect({ agent: { id: 'lead', name: 'Lead', team: 'green' }, session_id: 's1', gateway_id: 'gw-a', connected_at: now, last_activity_at: now }, 60_000, Date.now());
    await plain.requests.create(shutdown('req_a'), T0);
    expect((await plain.requests.list({ team: 'green' })).map((state) => state.request_id)).toEqual(['req_a']);
    expect(await plain.requests.list({ team: 'red' })).toEqual([]);
  });
});

describe('audit stream', () => {
  it('records every change with the state after it, and refused answers', async () => {
    await stores.requests.create(shutdown('req_1'), T0);
    await stores.requests.decide('req_1', answer('req_1', 'shutdown_response', false, 'busy'), { kind: 'agent', id: 'alice' }, T0 + 1);
    await stores.requests.decide('req_1', answer('req_1', 'shutdown_response', true), OP1, T0 + 2);

    const events = await readRequestEvents(redis, keys);
    expect(events.map((event) => [event.event, event.status, event.actor.id, event.rev])).toEqual([
      ['created', 'pending', 'lead', 1],
      ['rejected', 'rejected', 'alice', 2],
      ['refused', 'rejected', 'op-1', undefined],
    ]);
    expect(events[1]?.state).toMatchObject({ status: 'rejected', feedback: 'busy' });
    expect(events[2]?.feedback).toMatch(/approve=true after the request was rejected by alice/);
    expect(await readRequestEvents(redis, keys, { after: events[0]!.id })).toEqual(events.slice(1));
  });

  it('records a permission prompt that stopped waiting in the history and the stream, changing nothing else', async () => {
    await stores.requests.create(shutdown('req_fb'), T0);
    const before = await readRequestEvents(redis, keys);
    expect(await stores.requests.recordPromptFallback('req_fb', "Claude Code's permission prompt stopped waiting", T0 + 5)).toBe(true);
    expect(await stores.requests.recordPromptFallback('req_missing', 'nothing to record on', T0 + 5)).toBe(false);
    const stored = await stores.requests.get('req_fb');
    expect(stored?.state).toMatchObject({ status: 'pending', updated_at: new Date(T0).toISOString() });
    expect(stored?.history.at(-1)).toEqual({
      at: new Date(T0 + 5).toISOString(),
      actor: { kind: 'system', id: 'system' },
      event: 'prompt_fallback',
      status: 'pending',
      feedback: "Claude Code's permission prompt stopped waiting",
    });
    const [event] = await readRequestEvents(redis, keys, { after: before.at(-1)!.id });
    expect(event).toMatchObject({ event: 'prompt_fallback', requestId: 'req_fb', status: 'pending', feedback: "Claude Code's permission prompt stopped waiting" });
    expect(event?.state).toBeUndefined();
    // Still decidable: the decision comes after the fallback in the history.
    expect((await stores.requests.decide('req_fb', answer('req_fb', 'shutdown_response', true), OP1, T0 + 6)).outcome).toBe('applied');
    expect((await stores.requests.get('req_fb'))?.history.map((entry) => entry.event)).toEqual(['created', 'prompt_fallback', 'approved']);
  });
});

describe('read-back safety', () => {
  it('throws StoreDataError for a request hash that does not parse', async () => {
    await redis.hSet(keys.request('req_bad'), { state: JSON.stringify({ request_id: 'req_bad', status: 'weird' }), rev: '1', teams: '[]' });
    await expect(stores.requests.get('req_bad')).rejects.toBeInstanceOf(StoreDataError);
    await expect(stores.requests.decide('req_bad', answer('req_bad', 'shutdown_response', true), OP1, T0)).rejects.toBeInstanceOf(StoreDataError);
    await redis.hSet(keys.request('req_norev'), { state: JSON.stringify(shutdown('req_norev')), teams: '[]' });
    await expect(stores.requests.get('req_norev')).rejects.toThrow(/revision/);
  });
});

describe('plan gate', () => {
  function hook(trigger: OpenHookInput['trigger'], agentId = 'alice'): OpenHookInput {
    return { hookId: randomUUID(), agentId, sessionId: 'session-1', gatewayId: 'gw-a', trigger, now: T0, deadlineAt: T0 + 5_000 };
  }

  it('gates new pre-tool-use hooks of the sender while its plan approval is pending, and only those', async () => {
    const before = hook('pre-tool-use');
    expect((await stores.hooks.open(before)).kind).toBe('created');
    expect(await stores.requests.pendingPlanApproval('alice')).toBeNull();

    await stores.requests.create(plan('req_plan'), T0);
    expect(await stores.requests.pendingPlanApproval('alice')).toEqual(plan('req_plan'));
    const gated = hook('pre-tool-use');
    expect(await stores.hooks.open(gated)).toEqual({ kind: 'gated', requestId: 'req_plan' });
    expect(await stores.hooks.get(gated.hookId)).toBeNull();
    // Other triggers, other agents, and a hook opened before the plan go on as usual.
    expect((await stores.hooks.open(hook('post-tool-use'))).kind).toBe('created');
    expect((await stores.hooks.open(hook('pre-tool-use', 'bob'))).kind).toBe('created');
    expect((await stores.hooks.open({ ...before, now: T0 + 1 })).kind).toBe('joined');

    await stores.requests.decide('req_plan', answer('req_plan', 'plan_approval_response', true), { kind: 'agent', id: 'lead' }, T0 + 1);
    expect(await stores.requests.pendingPlanApproval('alice')).toBeNull();
    expect((await stores.hooks.open(gated)).kind).toBe('created');
  });

  it('keeps the gate closed after the plan expires or is rejected, until a plan is approved; a withdrawal changes no verdict', async () => {
    await stores.requests.create(plan('req_p1'), T0);
    await stores.requests.create(plan('req_p2', { deadline: at(T0 + 1_000) }), T0);
    expect((await stores.hooks.open(hook('pre-tool-use'))).kind).toBe('gated');

    await stores.requests.cancel('req_p1', { kind: 'agent', id: 'alice' }, T0 + 1);
    expect(await stores.hooks.open(hook('pre-tool-use'))).toMatchObject({ kind: 'gated', requestId: 'req_p2' });
    await stores.requests.expireDue(T0 + 1_000);
    const expired = hook('pre-tool-use');
    expect(await stores.hooks.open(expired)).toEqual({ kind: 'plan_required', status: 'expired', requestId: 'req_p2' });
    expect(await stores.hooks.get(expired.hookId)).toBeNull();
    // Other triggers and planning tools ('open') go on; 'require' changes nothing once a plan settled.
    expect((await stores.hooks.open(hook('post-tool-use'))).kind).toBe('created');
    expect((await stores.hooks.open({ ...hook('pre-tool-use'), planGate: 'open' })).kind).toBe('created');

    // A new plan withdrawn by its sender leaves the expiry standing.
    await stores.requests.create(plan('req_p3'), T0 + 2_000);
    await stores.requests.cancel('req_p3', { kind: 'agent', id: 'alice' }, T0 + 2_001);
    expect(await stores.hooks.open(hook('pre-tool-use'))).toMatchObject({ kind: 'plan_required', status: 'expired', requestId: 'req_p2' });

    await stores.requests.create(plan('req_p4'), T0 + 3_000);
    // A pending plan beside a settled verdict: the pending one gates.
    expect(await stores.hooks.open(hook('pre-tool-use'))).toMatchObject({ kind: 'gated', requestId: 'req_p4' });
    await stores.requests.decide('req_p4', answer('req_p4', 'plan_approval_response', false), { kind: 'agent', id: 'lead' }, T0 + 3_001);
    expect(await stores.hooks.open(hook('pre-tool-use'))).toMatchObject({ kind: 'plan_required', status: 'rejected', requestId: 'req_p4' });

    await stores.requests.create(plan('req_p5'), T0 + 4_000);
    await stores.requests.decide('req_p5', answer('req_p5', 'plan_approval_response', true), { kind: 'agent', id: 'lead' }, T0 + 4_001);
    expect((await stores.hooks.open(hook('pre-tool-use'))).kind).toBe('created');
  });

  it("with 'require', gates an agent that never had a plan settled; withdrawing a plan does not satisfy it", async () => {
    expect(await stores.hooks.open({ ...hook('pre-tool-use'), planGate: 'require' })).toEqual({ kind: 'plan_required', status: 'none' });
    expect((await stores.hooks.open(hook('pre-tool-use'))).kind).toBe('created');
    await stores.requests.create(plan('req_w'), T0);
    await stores.requests.cancel('req_w', { kind: 'agent', id: 'alice' }, T0 + 1);
    expect(await stores.hooks.open({ ...hook('pre-tool-use'), planGate: 'require' })).toEqual({ kind: 'plan_required', status: 'none' });
  });
});
