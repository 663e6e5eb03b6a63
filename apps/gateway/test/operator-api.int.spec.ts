/**
 * The operator API on a real gateway (in-process, port 0, the run's private Redis): bearer-token
 * authentication and roles, typed error bodies with their HTTP statuses, listing and filtering
 * requests opened by real agent connections, reading one with its history, and deciding — with
 * concurrent contrary decisions settled by exactly one winner.
 */
import { randomUUID } from 'node:crypto';
import {
  AgentListResponseSchema,
  OperatorErrorBodySchema,
  RequestDecisionResponseSchema,
  RequestDetailResponseSchema,
  RequestListResponseSchema,
  TimelineResponseSchema,
  type Plan,
  type RequestUpdateFrame,
} from '@ahp/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AgentClient} from './support/agent-client.js';
import { connectReady } from './support/agent-client.js';
import { newToken, startTestGateway, type TestAgentEntry, type TestGateway, type TestOperatorEntry } from './support/test-gateway.js';

const AGENTS: TestAgentEntry[] = [
  { id: 'lead', name: 'Lead', token: newToken(), team: 'red', role: 'lead' },
  { id: 'alice', name: 'Alice', token: newToken(), team: 'red', role: 'teammate' },
  { id: 'blue', name: 'Blue', token: newToken(), team: 'blue', role: 'teammate' },
];
const OPERATORS: TestOperatorEntry[] = [
  { id: 'op-viv', name: 'Viv', role: 'viewer', token: newToken() },
  { id: 'op-maria', name: 'Maria', role: 'approver', token: newToken() },
  { id: 'op-omar', name: 'Omar', role: 'approver', token: newToken() },
  { id: 'op-root', name: 'Root', role: 'admin', token: newToken() },
  { id: 'op-gone', name: 'Gone', role: 'admin', token: newToken(), revoked: true },
];
const PLAN: Plan = { title: 'Index orders', steps: [{ id: 's1', description: 'add the index', dependencies: [], status: 'pending', tools_expected: ['db.migrate'] }] };

let gw: TestGateway;
const clients: AgentClient[] = [];

beforeAll(async () => {
  gw = await startTestGateway({ name: 'operator-api', agents: AGENTS, operators: OPERATORS });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await gw?.stop();
});

async function ready(agentId: string): Promise<AgentClient> {
  const { client } = await connectReady(gw.wsUrl, gw.agents[agentId]!.token);
  clients.push(client);
  return client;
}

/** Calls the operator API as `operator` (a key of OPERATORS, or a raw Authorization value). */
async function call(operator: string | undefined, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: unknown; headers: Headers }> {
  const headers: Record<string, string> = {};
  const known = operator === undefined ? undefined : gw.operators[operator];
  if (operator !== undefined) headers['authorization'] = known === undefined ? operator : `Bearer ${known.token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${gw.httpUrl}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json(), headers: response.headers };
}

/** The typed error body of a failed call. */
function errorBody(json: unknown) {
  return OperatorErrorBodySchema.parse(json).error;
}

/** Opens a plan approval from `agent` through its connection and returns the request id. */
async function openPlan(agent: AgentClient, target: { kind: 'operators' } | { kind: 'agent'; agent: string }): Promise<string> {
  const id = `req_${randomUUID()}`;
  const reply = await agent.request({ type: 'request', id: `open-${id}`, request: { request_id: id, type: 'plan_approval', target, payload: { plan: PLAN } } });
  if (reply.type !== 'ack') throw new Error(`opening the plan failed: ${JSON.stringify(reply)}`);
  return id;
}

describe('authentication and roles', () => {
  it('answers 401 with a typed body and a challenge for a missing, unknown, malformed or revoked token', async () => {
    for (const auth of [undefined, 'Bearer not-a-token', 'Basic b3A6cHc=', `Bearer ${OPERATORS[4]!.token}`]) {
      const { status, json, headers } = await call(auth, 'GET', '/v1/operator/requests');
      expect(status, String(auth)).toBe(401);
      expect(errorBody(json)).toMatchObject({ code: 'E_UNAUTHORIZED', retryable: false });
      expect(headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    // An agent token is not an operator token.
    expect((await call(`Bearer ${gw.agents['lead']!.token}`, 'GET', '/v1/operator/me')).status).toBe(401);
  });

  it('says who the caller is', async () => {
    expect(await call('op-viv', 'GET', '/v1/operator/me')).toMatchObject({ status: 200, json: { operator: { id: 'op-viv', name: 'Viv', role: 'viewer' } } });
  });

  it('lets a viewer read but not decide (403 naming the role needed)', async () => {
    const alice = await ready('alice');
    const id = await openPlan(alice, { kind: 'operators' });
    expect((await call('op-viv', 'GET', `/v1/operator/requests/${id}`)).status).toBe(200);
    const { status, json } = await call('op-viv', 'POST', `/v1/operator/requests/${id}/decision`, { approve: true });
    expect(status).toBe(403);
    expect(errorBody(json)).toMatchObject({ code: 'E_FORBIDDEN', details: { role: 'viewer', required_role: 'approver' } });
    await call('op-maria', 'POST', `/v1/operator/requests/${id}/decision`, { approve: false, feedback: 'cleanup' });
  });
});

describe('requests', () => {
  it('lists and filters by status, type, agent, team and target; refuses bad filters with 400', async () => {
    const [lead, alice, blue] = await Promise.all([ready('lead'), ready('alice'), ready('blue')]);
    const redPlan = await openPlan(alice, { kind: 'agent', agent: 'lead' });
    const bluePlan = await openPlan(blue, { kind: 'operators' });
    const stop = `req_${randomUUID()}`;
    await lead.request({ type: 'request', id: 'stop', request: { request_id: stop, type: 'shutdown', target: { kind: 'agent', agent: 'alice' }, payload: {} } });

    const ids = async (query: string): Promise<string[]> => {
      const { status, json } = await call('op-viv', 'GET', `/v1/operator/requests${query}`);
      expect(status, query).toBe(200);
      return RequestListResponseSchema.parse(json).requests.map((request) => request.request_id);
    };
    const all = await ids('');
    expect(all.indexOf(stop)).toBeLessThan(all.indexOf(redPlan));
    expect(await ids('?team=blue')).toEqual([bluePlan]);
    expect(await ids('?team=red&type=shutdown')).toContain(stop);
    expect(await ids('?team=red&type=shutdown')).not.toContain(redPlan);
    expect(await ids('?agent=lead&status=pending')).toEqual(expect.arrayContaining([redPlan, stop]));
    expect(await ids('?target=operators&status=pending')).toContain(bluePlan);
    expect(await ids('?target=operators')).not.toContain(redPlan);
    expect(await ids('?limit=1')).toHaveLength(1);

    for (const bad of ['?status=waiting', '?limit=0', '?colour=red', '?agent=a%20b']) {
      const { status, json } = await call('op-viv', 'GET', `/v1/operator/requests${bad}`);
      expect(status, bad).toBe(400);
      expect(errorBody(json)).toMatchObject({ code: 'E_INVALID_FRAME', details: { issues: expect.any(Array) } });
    }
    await call('op-maria', 'POST', `/v1/operator/requests/${bluePlan}/decision`, { approve: false });
  });

  it('reads one request with its history; 404 for an unknown id, 400 for a malformed one', async () => {
    const alice = await ready('alice');
    const id = await openPlan(alice, { kind: 'operators' });
    await call('op-maria', 'POST', `/v1/operator/requests/${id}/decision`, { approve: true, feedback: 'go' });
    const { status, json } = await call('op-viv', 'GET', `/v1/operator/requests/${id}`);
    expect(status).toBe(200);
    const detail = RequestDetailResponseSchema.parse(json);
    expect(detail.request).toMatchObject({ status: 'approved', decided_by: 'op-maria', feedback: 'go' });
    expect(detail.history.map((entry) => [entry.event, entry.actor])).toEqual([
      ['created', { kind: 'agent', id: 'alice' }],
      ['approved', { kind: 'operator', id: 'op-maria' }],
    ]);
    expect((await call('op-viv', 'GET', '/v1/operator/requests/req_nope')).status).toBe(404);
    expect(errorBody((await call('op-viv', 'GET', '/v1/operator/requests/not-a-request-id')).json).code).toBe('E_INVALID_FRAME');
  });
});

describe('deciding', () => {
  it('records who decided; the same decision again is 200, a contrary one 409 naming the winner; the agent learns it', async () => {
    const alice = await ready('alice');
    const id = await openPlan(alice, { kind: 'operators' });
    const first = await call('op-maria', 'POST', `/v1/operator/requests/${id}/decision`, { approve: true, feedback: 'LGTM' });
    expect(first.status).toBe(200);
    expect(RequestDecisionResponseSchema.parse(first.json)).toMatchObject({ outcome: 'applied', request: { status: 'approved', decided_by: 'op-maria', decided_at: expect.any(String) } });

    const update = (await alice.next((frame) => frame.type === 'request_update' && frame.request.request_id === id && frame.request.status === 'approved')) as RequestUpdateFrame;
    expect(update.request).toMatchObject({ decided_by: 'op-maria', feedback: 'LGTM' });

    expect(await call('op-omar', 'POST', `/v1/operator/requests/${id}/decision`, { approve: true })).toMatchObject({ status: 200, json: { outcome: 'already_decided', request: { decided_by: 'op-maria' } } });
    const contrary = await call('op-omar', 'POST', `/v1/operator/requests/${id}/decision`, { approve: false });
    expect(contrary.status).toBe(409);
    expect(errorBody(contrary.json)).toMatchObject({ code: 'E_CONFLICT', details: { request_id: id, status: 'approved', decided_by: 'op-maria' } });
  });

  it('settles two concurrent contrary decisions with exactly one winner', async () => {
    const alice = await ready('alice');
    for (let round = 0; round < 3; round++) {
      const id = await openPlan(alice, { kind: 'operators' });
      const [maria, omar] = await Promise.all([
        call('op-maria', 'POST', `/v1/operator/requests/${id}/decision`, { approve: true }),
        call('op-omar', 'POST', `/v1/operator/requests/${id}/decision`, { approve: false }),
      ]);
      expect([maria.status, omar.status].sort()).toEqual([200, 409]);
      const [winner, loser] = maria.status === 200 ? [maria, omar] : [omar, maria];
      const decided = RequestDecisionResponseSchema.parse(winner.json).request;
      expect(errorBody(loser.json)).toMatchObject({ code: 'E_CONFLICT', details: { decided_by: decided.decided_by, status: decided.status } });
      const stored = RequestDetailResponseSchema.parse((await call('op-viv', 'GET', `/v1/operator/requests/${id}`)).json);
      expect(stored.request.decided_by).toBe(decided.decided_by);
      expect(stored.history.filter((entry) => entry.event === 'approved' || entry.event === 'rejected')).toHaveLength(1);
    }
  });

  it('keeps agent-addressed requests to their agent unless an admin overrides', async () => {
    const alice = await ready('alice');
    const id = await openPlan(alice, { kind: 'agent', agent: 'lead' });
    const approver = await call('op-maria', 'POST', `/v1/operator/requests/${id}/decision`, { approve: true });
    expect(approver.status).toBe(403);
    expect(errorBody(approver.json).details).toMatchObject({ required_role: 'admin' });
    expect(await call('op-root', 'POST', `/v1/operator/requests/${id}/decision`, { approve: false, feedback: 'lead is away; resubmit' })).toMatchObject({
      status: 200,
      json: { outcome: 'applied', request: { status: 'rejected', decided_by: 'op-root' } },
    });
  });

  it('answers bad bodies with 400, unknown requests and routes with 404', async () => {
    const alice = await ready('alice');
    const id = await openPlan(alice, { kind: 'operators' });
    for (const body of [{}, { approve: 'yes' }, { approve: true, decided_by: 'someone' }, { approve: true, modified_input: { a: 1 } }, '{"approve": tru']) {
      const { status, json } = await call('op-maria', 'POST', `/v1/operator/requests/${id}/decision`, body);
      expect(status, JSON.stringify(body)).toBe(400);
      expect(['E_INVALID_FRAME', 'E_BAD_FRAME']).toContain(errorBody(json).code);
    }
    expect((await call('op-maria', 'POST', `/v1/operator/requests/req_nope/decision`, { approve: true })).status).toBe(404);
    const huge = await call('op-maria', 'POST', `/v1/operator/requests/${id}/decision`, { approve: false, feedback: 'x'.repeat(200_000) });
    expect(huge.status).toBe(413);
    expect(errorBody(huge.json).code).toBe('E_FRAME_TOO_LARGE');
    const route = await call('op-maria', 'GET', '/v1/operator/nothing-here');
    expect(route.status).toBe(404);
    expect(errorBody(route.json).code).toBe('E_NOT_FOUND');
    await call('op-maria', 'POST', `/v1/operator/requests/${id}/decision`, { approve: false });
  });
});

describe('agents and timelines', () => {
  it('lists connected agents and live gateways, and an agent’s reported events', async () => {
    const alice = await ready('alice');
    await alice.request({ type: 'event', id: 'e-1', event: { kind: 'control_signal', control_signal: { step_id: 's1', control: 'step_done', format: 'structured' } } });
    const agents = AgentListResponseSchema.parse((await call('op-viv', 'GET', '/v1/operator/agents')).json);
    expect(agents.agents.find((entry) => entry.agent.id === 'alice')).toMatchObject({ gateway_id: gw.config.gatewayId, agent: { team: 'red' } });
    expect(agents.gateways.map((entry) => entry.gateway_id)).toContain(gw.config.gatewayId);

    const timeline = TimelineResponseSchema.parse((await call('op-viv', 'GET', '/v1/operator/agents/alice/timeline?limit=5')).json);
    expect(timeline.events[0]).toMatchObject({ agent_id: 'alice', event: { kind: 'control_signal' } });
    expect((await call('op-viv', 'GET', '/v1/operator/agents/alice/timeline?limit=zero')).status).toBe(400);
  });
});

describe('without an operator tokens file', () => {
  it('refuses every call with 401', async () => {
    const bare = await startTestGateway({ name: 'operator-api-bare' });
    try {
      const response = await fetch(`${bare.httpUrl}/v1/operator/me`, { headers: { authorization: `Bearer ${newToken()}` } });
      expect(response.status).toBe(401);
      expect(errorBody(await response.json()).message).toMatch(/AHP_OPERATOR_TOKENS_FILE/);
    } finally {
      await bare.stop();
    }
  });
});
