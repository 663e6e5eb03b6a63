/**
 * ToolApprovalStore and ToolGrantStore against the run's Redis: one request per hook, binding to
 * the exact call, using a settled approval once (also with concurrent consumers on two clients),
 * finding a request again by its call, and session grants (create, match, revoke, expiry).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ToolGrantSchema, toolApprovalRequestId, type ProtocolState } from '@ahp/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  StoreInputError,
  approvalBindsTo,
  approvalRefusal,
  createRedisStores,
  createToolApprovalStore,
  createToolGrantStore,
  grantIdFor,
  toolInputDigest,
  type ApprovalTerms,
  type RedisClient,
  type RedisStores,
  type StoreKeys,
  type ToolApprovalStore,
  type ToolCall,
  type ToolGrantStore,
} from '../src/index.js';
import { openClient, randomUUID, testKeys } from './support.js';

const T0 = Date.parse('2025-06-01T12:00:00.000Z');
const OP = { kind: 'operator' as const, id: 'op-1' };
const CALL: ToolCall = { agentId: 'agent-1', sessionId: 'session-1', tool: 'bash', input: { command: 'rm -rf build', cwd: '/repo' } };

let redis: RedisClient;
let other: RedisClient;
let keys: StoreKeys;
let stores: RedisStores;
let approvals: ToolApprovalStore;
let approvals2: ToolApprovalStore;
let grants: ToolGrantStore;

beforeAll(async () => {
  [redis, other] = await Promise.all([openClient('store-test:tool-approvals'), openClient('store-test:tool-approvals-2')]);
});
afterAll(async () => {
  await Promise.all([redis.close(), other.close()]);
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  stores = createRedisStores({ redis, keys, teamOf: () => undefined });
  approvals = createToolApprovalStore({ redis, keys, requests: stores.requests });
  approvals2 = createToolApprovalStore({ redis: other, keys, requests: createRedisStores({ redis: other, keys, teamOf: () => undefined }).requests });
  grants = createToolGrantStore({ redis, keys });
});

const RULES = ['pre-tool-use/risky/rm'];
const TERMS: ApprovalTerms = { rules: RULES, onExpiry: 'reject' };

function open(hookId: string, call: ToolCall = CALL, now = T0, deadlineMs = 60_000) {
  return approvals.open({ hookId, call, deadlineMs, onExpiry: 'reject', reason: 'destructive command', rule: 'pre-tool-use/risky/rm', rules: RULES, now });
}

async function approve(state: ProtocolState, extra: { modified_input?: Record<string, string> } = {}, now = T0 + 1000): Promise<ProtocolState> {
  const outcome = await stores.requests.decide(state.request_id, { request_id: state.request_id, type: 'tool_approval_response', approve: true, ...extra }, OP, now);
  if (outcome.outcome !== 'applied') throw new Error(`not applied: ${outcome.outcome}`);
  return outcome.state;
}

describe('ToolApprovalStore', () => {
  it("answers too_many, opening nothing, for an agent at the request store's cap; concurrent opens never pass it; the same hook again finds its request", async () => {
    const capped = createToolApprovalStore({ redis, keys, requests: createRedisStores({ redis, keys, teamOf: () => undefined, maxPendingRequestsPerAgent: 3 }).requests });
    const hookIds = Array.from({ length: 12 }, () => randomUUID());
    const outcomes = await Promise.all(
      hookIds.map((hookId, i) => capped.open({ hookId, call: { ...CALL, input: { command: `rm -rf build${i}` } }, deadlineMs: 60_000, onExpiry: 'reject', rules: RULES, now: T0 })),
    );
    expect(outcomes.filter((outcome) => outcome.outcome === 'opened')).toHaveLength(3);
    expect(outcomes.filter((outcome) => outcome.outcome === 'too_many')).toEqual(Array.from({ length: 9 }, () => ({ outcome: 'too_many', max: 3 })));
    expect(await redis.zCard(keys.requestsByStatus('pending'))).toBe(3);
    const openedAt = outcomes.findIndex((outcome) => outcome.outcome === 'opened');
    const again = await capped.open({ hookId: hookIds[openedAt]!, call: { ...CALL, input: { command: `rm -rf build${openedAt}` } }, deadlineMs: 60_000, onExpiry: 'reject', rules: RULES, now: T0 });
    expect(again.outcome).toBe('found');
  });

  it('opens one request per hook, addressed to operators, carrying the call, its digest and the rule terms', async () => {
    const hookId = randomUUID();
    const first = await open(hookId);
    expect(first.outcome).toBe('opened');
    if (first.outcome === 'conflict' || first.outcome === 'too_many') return;
    expect(first.state).toMatchObject({
      request_id: toolApprovalRequestId(hookId),
      type: 'tool_approval',
      sender: 'agent-1',
      target: { kind: 'operators' },
      status: 'pending',
      deadline: new Date(T0 + 60_000).toISOString(),
      payload: {
        tool: 'bash',
        input: CALL.input,
        input_digest: toolInputDigest(CALL.input),
        hook_id: hookId,
        session_id: 'session-1',
        on_expiry: 'reject',
        reason: 'destructive command',
        rule: 'pre-tool-use/risky/rm',
        rules: RULES,
      },
    });
    // The same hook again (a retried job, even later): the same request, not a second one.
    const again = await open(hookId, CALL, T0 + 5000);
    expect(again).toEqual({ outcome: 'found', state: first.state });
    expect(await stores.requests.list({ type: 'tool_approval' })).toHaveLength(1);
  });

  it('digests the canonical JSON: key order does not matter, any value does', () => {
    expect(toolInputDigest({ a: 1, b: { c: [1, 2], d: 'x' } })).toBe(toolInputDigest({ b: { d: 'x', c: [1, 2] }, a: 1 }));
    expect(toolInputDigest({ a: 1 })).not.toBe(toolInputDigest({ a: 2 }));
    expect(toolInputDigest({ command: 'ls' })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses to use a request under the derived id that another party opened with another input', async () => {
    const hookId = randomUUID();
    const planted = await stores.requests.create(
      {
        request_id: toolApprovalRequestId(hookId),
        type: 'tool_approval',
        sender: 'agent-1',
        target: { kind: 'operators' },
        status: 'pending',
        created_at: new Date(T0).toISOString(),
        updated_at: new Date(T0).toISOString(),
        // Shows a harmless input to the operator while claiming the digest of the real one.
        payload: { tool: 'bash', input: { command: 'ls' }, input_digest: toolInputDigest(CALL.input), session_id: 'session-1' },
      },
      T0,
    );
    expect(planted).toMatchObject({ created: true });
    expect(await open(hookId)).toMatchObject({ outcome: 'conflict' });
  });

  it('refuses a request under the derived id with the right input but other terms (a misleading reason)', async () => {
    const hookId = randomUUID();
    await stores.requests.create(
      {
        request_id: toolApprovalRequestId(hookId),
        type: 'tool_approval',
        sender: 'agent-1',
        target: { kind: 'operators' },
        status: 'pending',
        created_at: new Date(T0).toISOString(),
        updated_at: new Date(T0).toISOString(),
        payload: {
          tool: 'bash',
          input: CALL.input,
          input_digest: toolInputDigest(CALL.input),
          hook_id: hookId,
          session_id: 'session-1',
          on_expiry: 'reject',
          reason: 'harmless cleanup, approve it',
          rule: 'pre-tool-use/risky/rm',
        },
      },
      T0,
    );
    expect(await open(hookId)).toMatchObject({ outcome: 'conflict' });
  });

  it('binds an approval to the agent, the session, the tool and the input', async () => {
    const opened = await open(randomUUID());
    if (opened.outcome === 'conflict' || opened.outcome === 'too_many') throw new Error('conflict');
    const state = opened.state;
    expect(approvalBindsTo(state, CALL)).toBe(true);
    expect(approvalBindsTo(state, { ...CALL, input: { cwd: '/repo', command: 'rm -rf build' } })).toBe(true);
    expect(approvalBindsTo(state, { ...CALL, input: { command: 'rm -rf /', cwd: '/repo' } })).toBe(false);
    expect(approvalBindsTo(state, { ...CALL, agentId: 'agent-2' })).toBe(false);
    expect(approvalBindsTo(state, { ...CALL, sessionId: 'session-2' })).toBe(false);
    expect(approvalBindsTo(state, { ...CALL, tool: 'sh' })).toBe(false);
  });

  it('finds the latest request for a call again, and nothing for another input or session', async () => {
    const first = await open(randomUUID());
    const second = await open(randomUUID());
    if (first.outcome === 'conflict' || first.outcome === 'too_many' || second.outcome === 'conflict' || second.outcome === 'too_many') throw new Error('conflict');
    expect((await approvals.findForCall({ ...CALL, input: { cwd: '/repo', command: 'rm -rf build' } }))?.state.request_id).toBe(second.state.request_id);
    expect(await approvals.findForCall({ ...CALL, input: { command: 'rm -rf src' } })).toBeNull();
    expect(await approvals.findForCall({ ...CALL, sessionId: 'session-2' })).toBeNull();
    const ttl = await redis.pTTL(keys.toolApprovalCalls('session-1'));
    expect(ttl).toBeGreaterThan(60_000);
  });

  it('consumes a settled request once: the first hook holds it, the same hook again too, another hook not', async () => {
    const opened = await open(randomUUID());
    if (opened.outcome === 'conflict' || opened.outcome === 'too_many') throw new Error('conflict');
    const id = opened.state.request_id;
    const h2 = randomUUID();
    expect(await approvals.consume(id, h2)).toEqual({ outcome: 'pending' });
    await approve(opened.state);
    expect(await approvals.consume(id, h2)).toEqual({ outcome: 'consumed' });
    expect(await approvals.consume(id, h2)).toEqual({ outcome: 'consumed' });
    expect(await approvals.consume(id, 'another-hook')).toEqual({ outcome: 'taken', by: h2 });
    expect(await approvals.consume('req_nothing', h2)).toEqual({ outcome: 'missing' });
    // The request itself reads back unchanged.
    expect((await approvals.get(id))?.state.status).toBe('approved');
  });

  it('lets exactly one of many concurrent consumers on two clients win', async () => {
    const opened = await open(randomUUID());
    if (opened.outcome === 'conflict' || opened.outcome === 'too_many') throw new Error('conflict');
    await approve(opened.state);
    const hooks = Array.from({ length: 20 }, () => randomUUID());
    const results = await Promise.all(hooks.map((hook, i) => (i % 2 === 0 ? approvals : approvals2).consume(opened.state.request_id, hook)));
    const winners = results.filter((r) => r.outcome === 'consumed');
    expect(winners).toHaveLength(1);
    const winner = hooks[results.findIndex((r) => r.outcome === 'consumed')];
    expect(results.filter((r) => r.outcome === 'taken').every((r) => r.outcome === 'taken' && r.by === winner)).toBe(true);
  });

  it('an approval satisfies the rules only as the rule’s own request, decided by an operator, for the same rules and terms', async () => {
    const opened = await open(randomUUID());
    if (opened.outcome === 'conflict' || opened.outcome === 'too_many') throw new Error('conflict');
    const id = opened.state.request_id;
    expect(approvalRefusal((await approvals.get(id))!, CALL, TERMS)).toBeUndefined();
    await approve(opened.state);
    const found = (await approvals.get(id))!;
    expect(found.settledBy).toEqual(OP);
    expect(approvalRefusal(found, CALL, TERMS)).toBeUndefined();
    expect(approvalRefusal(found, CALL, { ...TERMS, rules: [...RULES, 'pre-tool-use/risky/prod'] })).toMatch(/other rules/);
    expect(approvalRefusal(found, CALL, { ...TERMS, rules: ['pre-tool-use/risky/prod'] })).toMatch(/other rules/);
    expect(approvalRefusal(found, CALL, { ...TERMS, onExpiry: 'approve' })).toMatch(/other terms/);
    expect(approvalRefusal(found, { ...CALL, input: { command: 'rm -rf /' } }, TERMS)).toMatch(/another call/);
    expect(approvalRefusal({ state: found.state, settledBy: { kind: 'agent', id: 'lead' } }, CALL, TERMS)).toMatch(/not by an operator/);
    expect(approvalRefusal({ state: found.state }, CALL, TERMS)).toMatch(/not by an operator/);
  });

  it('a tool approval an agent opened itself never satisfies a rule, whoever approved it', async () => {
    const hookId = randomUUID();
    const own = await stores.requests.create(
      {
        request_id: `req_${randomUUID()}`,
        type: 'tool_approval',
        sender: 'agent-1',
        target: { kind: 'agent', agent: 'lead' },
        status: 'pending',
        created_at: new Date(T0).toISOString(),
        updated_at: new Date(T0).toISOString(),
        payload: { tool: 'bash', input: CALL.input, input_digest: toolInputDigest(CALL.input), hook_id: hookId, session_id: 'session-1', on_expiry: 'reject', rules: RULES },
      },
      T0,
    );
    if ('outcome' in own) throw new Error('conflict');
    await stores.requests.decide(own.state.request_id, { request_id: own.state.request_id, type: 'tool_approval_response', approve: true }, { kind: 'agent', id: 'lead' }, T0 + 1);
    const found = (await approvals.get(own.state.request_id))!;
    expect(found).toMatchObject({ state: { status: 'approved' }, settledBy: { kind: 'agent', id: 'lead' } });
    expect(approvalRefusal(found, CALL, TERMS)).toMatch(/not a request a rule opened/);
    // Nor can it become a session grant.
    await expect(grants.grant({ state: found.state, scope: 'session', grantedBy: 'op-1', ttlMs: 60_000, now: T0 })).rejects.toThrow(StoreInputError);
  });

  it('expires a request that is due when asked, and leaves one that is not', async () => {
    const opened = await open(randomUUID(), CALL, T0, 1000);
    if (opened.outcome === 'conflict' || opened.outcome === 'too_many') throw new Error('conflict');
    expect((await approvals.settleIfDue(opened.state, T0 + 999)).status).toBe('pending');
    const settled = await approvals.settleIfDue(opened.state, T0 + 1000);
    expect(settled).toMatchObject({ status: 'expired', decided_at: new Date(T0 + 1000).toISOString() });
  });
});

describe('ToolGrantStore', () => {
  const TTL = 60_000;
  // Grants expire in Redis (PEXPIREAT), so their clock is the real one.
  let G0 = Date.now();
  beforeEach(() => {
    G0 = Date.now();
  });

  async function approved(extra: { modified_input?: Record<string, string> } = {}, call: ToolCall = CALL): Promise<ProtocolState> {
    const opened = await open(randomUUID(), call, G0);
    if (opened.outcome === 'conflict' || opened.outcome === 'too_many') throw new Error('conflict');
    return approve(opened.state, extra, G0 + 1);
  }

  const callOf = (input: Record<string, string>, overrides: Partial<ToolCall> = {}) => ({
    agentId: overrides.agentId ?? CALL.agentId,
    sessionId: overrides.sessionId ?? CALL.sessionId,
    tool: overrides.tool ?? CALL.tool,
    inputDigest: toolInputDigest(input),
    rules: RULES,
  });

  it('records a grant once per request, with who, when and from which request', async () => {
    const state = await approved();
    const first = await grants.grant({ state, scope: 'session', grantedBy: 'op-1', ttlMs: TTL, now: G0 + 2000 });
    expect(first.created).toBe(true);
    expect(ToolGrantSchema.parse(first.grant)).toEqual({
      grant_id: grantIdFor(state.request_id),
      agent: 'agent-1',
      session_id: 'session-1',
      tool: 'bash',
      scope: 'session',
      input_digest: toolInputDigest(CALL.input),
      input: CALL.input,
      request_id: state.request_id,
      rules: RULES,
      granted_by: 'op-1',
      granted_at: new Date(G0 + 2000).toISOString(),
      expires_at: new Date(G0 + 2000 + TTL).toISOString(),
      uses: 0,
    });
    const again = await grants.grant({ state, scope: 'session_tool', grantedBy: 'op-2', ttlMs: TTL, now: G0 + 3000 });
    expect(again).toEqual({ created: false, grant: first.grant });
    expect(await grants.get(first.grant.grant_id)).toEqual(first.grant);
  });

  it('refuses to grant what is not an approved tool approval of a session', async () => {
    const opened = await open(randomUUID());
    if (opened.outcome === 'conflict' || opened.outcome === 'too_many') throw new Error('conflict');
    await expect(grants.grant({ state: opened.state, scope: 'session', grantedBy: 'op-1', ttlMs: TTL, now: G0 })).rejects.toThrow(StoreInputError);
  });

  it('matches the same tool and input in the same session only; a whole-tool grant matches any input', async () => {
    const exact = await grants.grant({ state: await approved(), scope: 'session', grantedBy: 'op-1', ttlMs: TTL, now: G0 });
    const now = G0 + 10_000;
    expect((await grants.match(callOf({ cwd: '/repo', command: 'rm -rf build' }), now))?.grant_id).toBe(exact.grant.grant_id);
    expect(await grants.match(callOf({ command: 'rm -rf src' }), now)).toBeNull();
    expect(await grants.match(callOf(CALL.input as Record<string, string>, { sessionId: 'session-2' }), now)).toBeNull();
    expect(await grants.match(callOf(CALL.input as Record<string, string>, { agentId: 'agent-2' }), now)).toBeNull();
    expect(await grants.match(callOf(CALL.input as Record<string, string>, { tool: 'sh' }), now)).toBeNull();
    const wide = await grants.grant({ state: await approved({}, { ...CALL, input: { command: 'git push --force' } }), scope: 'session_tool', grantedBy: 'op-1', ttlMs: TTL, now: G0 });
    expect((await grants.match(callOf({ command: 'rm -rf src' }), now))?.grant_id).toBe(wide.grant.grant_id);
    // An exact grant is preferred when both cover the call.
    expect((await grants.match(callOf(CALL.input as Record<string, string>), now))?.grant_id).toBe(exact.grant.grant_id);
  });

  it('covers only calls the rules that asked for its approval ask about', async () => {
    const { grant } = await grants.grant({ state: await approved(), scope: 'session_tool', grantedBy: 'op-1', ttlMs: TTL, now: G0 });
    expect(grant.rules).toEqual(RULES);
    const call = callOf({ command: 'rm -rf src' });
    expect((await grants.match(call, G0 + 1))?.grant_id).toBe(grant.grant_id);
    expect(await grants.match({ ...call, rules: [...RULES, 'pre-tool-use/risky/prod'] }, G0 + 1)).toBeNull();
    expect(await grants.match({ ...call, rules: ['pre-tool-use/risky/prod'] }, G0 + 1)).toBeNull();
  });

  it('binds a grant of a modified approval to the input the person approved', async () => {
    const state = await approved({ modified_input: { command: 'rm -rf build/tmp', cwd: '/repo' } });
    await grants.grant({ state, scope: 'session', grantedBy: 'op-1', ttlMs: TTL, now: G0 });
    expect(await grants.match(callOf(CALL.input as Record<string, string>), G0 + 1)).toBeNull();
    expect(await grants.match(callOf({ command: 'rm -rf build/tmp', cwd: '/repo' }), G0 + 1)).not.toBeNull();
  });

  it('revokes once, records who revoked it, and stops matching from the next call on', async () => {
    const { grant } = await grants.grant({ state: await approved(), scope: 'session', grantedBy: 'op-1', ttlMs: TTL, now: G0 });
    expect(await grants.match(callOf(CALL.input as Record<string, string>), G0 + 1)).not.toBeNull();
    const [a, b] = await Promise.all([grants.revoke(grant.grant_id, 'op-2', G0 + 5), createToolGrantStore({ redis: other, keys }).revoke(grant.grant_id, 'op-3', G0 + 6)]);
    const outcomes = [a?.outcome, b?.outcome].sort();
    expect(outcomes).toEqual(['already_revoked', 'revoked']);
    const winner = a?.outcome === 'revoked' ? 'op-2' : 'op-3';
    expect(a?.grant.revoked_by).toBe(winner);
    expect(b?.grant.revoked_by).toBe(winner);
    expect(await grants.match(callOf(CALL.input as Record<string, string>), G0 + 10)).toBeNull();
    expect(await grants.list({ session: 'session-1' }, G0 + 10)).toEqual([expect.objectContaining({ grant_id: grant.grant_id, revoked_by: winner })]);
    expect(await grants.revoke(grantIdFor('req_unknown'), 'op-2', G0)).toBeNull();
  });

  it('a revocation marks the grant’s request: it is never consumed again, by a hook that presents it or finds it', async () => {
    const state = await approved();
    const { grant } = await grants.grant({ state, scope: 'session', grantedBy: 'op-1', ttlMs: TTL, now: G0 });
    // The grant allowed calls; the request itself was never presented.
    expect((await grants.match(callOf(CALL.input as Record<string, string>), G0 + 1))?.uses).toBe(1);
    const revoked = await grants.revoke(grant.grant_id, 'op-2', G0 + 2);
    expect(revoked).toMatchObject({ outcome: 'revoked', grant: { uses: 1, revoked_by: 'op-2' } });
    expect(await approvals.consume(state.request_id, randomUUID())).toEqual({ outcome: 'revoked', grantId: grant.grant_id });
    expect(await approvals2.consume(state.request_id, randomUUID())).toEqual({ outcome: 'revoked', grantId: grant.grant_id });
    expect(await grants.match(callOf(CALL.input as Record<string, string>), G0 + 3)).toBeNull();
    expect((await grants.get(grant.grant_id))?.uses).toBe(1);
  });

  it('revocation racing uses on two clients: every use counted is at or below the count the revocation reports, and none follows it', async () => {
    const state = await approved();
    const { grant } = await grants.grant({ state, scope: 'session', grantedBy: 'op-1', ttlMs: TTL, now: G0 });
    const other2 = createToolGrantStore({ redis: other, keys });
    const call = callOf(CALL.input as Record<string, string>);
    const uses: number[] = [];
    let refusals = 0;
    let revokedAt: number | undefined;
    const user = async (store: ToolGrantStore) => {
      for (let i = 0; i < 40; i += 1) {
        const startedAfterRevocation = revokedAt !== undefined;
        const matched = await store.match(call, G0 + 10);
        if (matched === null) refusals += 1;
        else uses.push(matched.uses!);
        // A match that began once the revocation had returned is always refused.
        if (startedAfterRevocation) expect(matched).toBeNull();
      }
    };
    const revoker = async () => {
      while (uses.length < 5) await sleep(1);
      const result = await other2.revoke(grant.grant_id, 'op-2', G0 + 10);
      revokedAt = result?.grant.uses;
      return result;
    };
    const [, , revocation] = await Promise.all([user(grants), user(other2), revoker()]);
    expect(revocation?.outcome).toBe('revoked');
    const final = revocation!.grant.uses!;
    expect(uses.length).toBe(final);
    expect(Math.max(...uses)).toBe(final);
    expect(new Set(uses).size).toBe(uses.length);
    expect(refusals).toBe(80 - final);
    expect((await grants.get(grant.grant_id))?.uses).toBe(final);
  });

  it('lists by session, by agent, or everything unexpired, newest first', async () => {
    const g1 = await grants.grant({ state: await approved(), scope: 'session', grantedBy: 'op-1', ttlMs: TTL, now: G0 });
    const g2 = await grants.grant({ state: await approved({}, { ...CALL, agentId: 'agent-2', sessionId: 'session-2' }), scope: 'session_tool', grantedBy: 'op-1', ttlMs: TTL, now: G0 + 1 });
    expect((await grants.list({}, G0 + 2)).map((g) => g.grant_id)).toEqual([g2.grant.grant_id, g1.grant.grant_id]);
    expect((await grants.list({ agent: 'agent-1' }, G0 + 2)).map((g) => g.grant_id)).toEqual([g1.grant.grant_id]);
    expect((await grants.list({ session: 'session-2' }, G0 + 2)).map((g) => g.grant_id)).toEqual([g2.grant.grant_id]);
    expect(await grants.list({ session: 'session-3' }, G0 + 2)).toEqual([]);
  });

  it('expires with the session TTL after its last use, and a use extends it', async () => {
    const now = Date.now();
    const { grant } = await grants.grant({ state: await approved(), scope: 'session', grantedBy: 'op-1', ttlMs: 400, now });
    const used = await grants.match(callOf(CALL.input as Record<string, string>), now + 300);
    expect(used?.expires_at).toBe(new Date(now + 700).toISOString());
    expect(await redis.pTTL(keys.grant(grant.grant_id))).toBeGreaterThan(0);
    // Wait until Redis itself dropped it (no fixed delay: poll the key).
    while ((await redis.exists(keys.grant(grant.grant_id))) === 1) await sleep(50);
    expect(await grants.get(grant.grant_id)).toBeNull();
    expect(await grants.match(callOf(CALL.input as Record<string, string>), Date.now())).toBeNull();
    expect(await redis.sCard(keys.sessionGrants('session-1'))).toBe(0);
  });
});
