/**
 * Session grants through the operator API on a real gateway (in-process, port 0, the run's private
 * Redis): an approval with `scope` records a grant the worker's store matches, `GET /grants` lists
 * it for any role, `DELETE /grants/:id` revokes it (approver and up, idempotent, audited), and a
 * scope the request cannot take is refused before anything is decided.
 */
import { randomUUID } from 'node:crypto';
import {
  GrantListResponseSchema,
  GrantRevokeResponseSchema,
  OperatorErrorBodySchema,
  RequestDecisionResponseSchema,
  type ProtocolState,
} from '@ahp/protocol';
import { createToolApprovalStore, createToolGrantStore, toolInputDigest, type ToolApprovalStore, type ToolGrantStore } from '@ahp/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newToken, openTestStore, startTestGateway, testLogger, type TestGateway, type TestOperatorEntry, type TestStore } from './support/test-gateway.js';

const OPERATORS: TestOperatorEntry[] = [
  { id: 'op-viv', name: 'Viv', role: 'viewer', token: newToken() },
  { id: 'op-maria', name: 'Maria', role: 'approver', token: newToken() },
];

let gw: TestGateway;
let store: TestStore;
let approvals: ToolApprovalStore;
let grants: ToolGrantStore;

beforeAll(async () => {
  gw = await startTestGateway({ name: 'operator-grants', operators: OPERATORS });
  store = await openTestStore(gw.keyPrefix, testLogger());
  approvals = createToolApprovalStore({ redis: store.redis, keys: store.keys, requests: store.stores.requests });
  grants = createToolGrantStore({ redis: store.redis, keys: store.keys });
});

afterAll(async () => {
  await gw?.stop();
  await store?.close();
});

async function call(operator: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${gw.httpUrl}/v1/operator${path}`, {
    method,
    headers: { authorization: `Bearer ${gw.operators[operator]!.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

const RULES = ['pre-tool-use/risky/rm'];

/** A tool approval as a rule would open it through the worker, for `agent` in `session`. */
async function opened(session: string, input = { command: `rm -rf build-${randomUUID().slice(0, 8)}` }): Promise<ProtocolState> {
  const result = await approvals.open({ hookId: randomUUID(), call: { agentId: 'agent-1', sessionId: session, tool: 'bash', input }, deadlineMs: 60_000, onExpiry: 'reject', rules: RULES, now: Date.now() });
  if (result.outcome === 'conflict' || result.outcome === 'too_many') throw new Error('conflict');
  return result.state;
}

describe('session grants in the operator API', () => {
  it('an approval with scope session records a grant that the worker matches, until an approver revokes it', async () => {
    const session = `s-${randomUUID()}`;
    const request = await opened(session);
    const decided = await call('op-maria', 'POST', `/requests/${request.request_id}/decision`, { approve: true, scope: 'session' });
    expect(decided.status).toBe(200);
    const { grant } = RequestDecisionResponseSchema.parse(decided.json);
    expect(grant).toMatchObject({ agent: 'agent-1', session_id: session, tool: 'bash', scope: 'session', request_id: request.request_id, granted_by: 'op-maria' });

    // Deciding the same request again is idempotent and returns the same grant.
    const again = RequestDecisionResponseSchema.parse((await call('op-maria', 'POST', `/requests/${request.request_id}/decision`, { approve: true, scope: 'session' })).json);
    expect(again).toMatchObject({ outcome: 'already_decided', grant: { grant_id: grant!.grant_id } });

    if (request.type !== 'tool_approval') throw new Error('not a tool approval');
    const call1 = { agentId: 'agent-1', sessionId: session, tool: 'bash', inputDigest: toolInputDigest(request.payload.input), rules: RULES };
    expect((await grants.match(call1, Date.now()))?.grant_id).toBe(grant!.grant_id);

    const listed = await call('op-viv', 'GET', `/grants?session=${session}`);
    expect(listed.status).toBe(200);
    expect(GrantListResponseSchema.parse(listed.json).grants.map((g) => g.grant_id)).toEqual([grant!.grant_id]);
    expect(GrantListResponseSchema.parse((await call('op-viv', 'GET', '/grants?agent=agent-1')).json).grants.map((g) => g.grant_id)).toContain(grant!.grant_id);

    const byViewer = await call('op-viv', 'DELETE', `/grants/${grant!.grant_id}`);
    expect(byViewer.status).toBe(403);
    const revoked = await call('op-maria', 'DELETE', `/grants/${grant!.grant_id}`);
    expect(revoked.status).toBe(200);
    expect(GrantRevokeResponseSchema.parse(revoked.json)).toMatchObject({ outcome: 'revoked', grant: { revoked_by: 'op-maria' } });
    expect(await grants.match(call1, Date.now())).toBeNull();
    // The request the grant came from is marked too: no hook can consume it after the revocation.
    expect(await approvals.consume(request.request_id, randomUUID())).toEqual({ outcome: 'revoked', grantId: grant!.grant_id });
    expect(GrantRevokeResponseSchema.parse((await call('op-maria', 'DELETE', `/grants/${grant!.grant_id}`)).json).outcome).toBe('already_revoked');
  });

  it('a whole-tool grant covers other inputs of the tool', async () => {
    const session = `s-${randomUUID()}`;
    const request = await opened(session);
    const { grant } = RequestDecisionResponseSchema.parse((await call('op-maria', 'POST', `/requests/${request.request_id}/decision`, { approve: true, scope: 'session_tool' })).json);
    expect(grant).toMatchObject({ scope: 'session_tool' });
    expect(grant).not.toHaveProperty('input_digest');
    expect(await grants.match({ agentId: 'agent-1', sessionId: session, tool: 'bash', inputDigest: toolInputDigest({ command: 'anything' }), rules: RULES }, Date.now())).not.toBeNull();
  });

  it('refuses a scope the request cannot take, and leaves it pending', async () => {
    const plan = await store.stores.requests.create(
      {
        request_id: `req_${randomUUID()}`,
        type: 'plan_approval',
        sender: 'agent-1',
        target: { kind: 'operators' },
        status: 'pending',
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
        payload: { plan: { title: 'p', steps: [{ id: 's1', description: 'd', dependencies: [], status: 'pending', tools_expected: [] }] } },
      },
      Date.now(),
    );
    if ('outcome' in plan) throw new Error('conflict');
    const refused = await call('op-maria', 'POST', `/requests/${plan.state.request_id}/decision`, { approve: true, scope: 'session' });
    expect(refused.status).toBe(400);
    expect(OperatorErrorBodySchema.parse(refused.json).error.code).toBe('E_INVALID_FRAME');
    expect((await store.stores.requests.get(plan.state.request_id))?.state.status).toBe('pending');

    const rejection = await call('op-maria', 'POST', `/requests/${plan.state.request_id}/decision`, { approve: false, scope: 'session_tool' });
    expect(rejection.status).toBe(400);
  });

  it('answers 404 for an unknown grant and 400 for a malformed id', async () => {
    expect((await call('op-maria', 'DELETE', `/grants/grant_${'0'.repeat(32)}`)).status).toBe(404);
    expect((await call('op-maria', 'DELETE', '/grants/not-a-grant')).status).toBe(400);
    expect((await call('op-viv', 'GET', '/grants?color=red')).status).toBe(400);
  });
});
