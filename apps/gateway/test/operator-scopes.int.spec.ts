/**
 * Operator tokens scoped to teams and request types, on a real gateway (in-process, port 0, the
 * run's private Redis) with real agent connections: a scoped operator sees and decides only its
 * teams' agents, requests, signals, grants and timelines — in every route and in the live feed —
 * and only the request types its scope names; what it may not see answers 404 as if it did not
 * exist, and nothing it was refused is decided, granted or revoked. Audit entries carry the scope.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  AgentListResponseSchema,
  AuditListResponseSchema,
  FleetResponseSchema,
  GrantListResponseSchema,
  OperatorErrorBodySchema,
  OperatorLiveEventSchema,
  RequestDetailResponseSchema,
  RequestListResponseSchema,
  SignalLogListResponseSchema,
  SignalLogStatsSchema,
  type OperatorLiveEvent,
  type Plan,
  type ProtocolState,
} from '@ahp/protocol';
import { createToolApprovalStore, toolInputDigest, type ToolApprovalStore } from '@ahp/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectReady, type AgentClient } from './support/agent-client.js';
import { decideAsWorker, promptSignal } from './support/decisions.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestAgentEntry, type TestGateway, type TestOperatorEntry, type TestStore } from './support/test-gateway.js';

const AGENTS: TestAgentEntry[] = [
  { id: 'red-lead', name: 'Red lead', token: newToken(), team: 'red', role: 'lead' },
  { id: 'red-1', name: 'Red one', token: newToken(), team: 'red', role: 'teammate' },
  { id: 'blue-lead', name: 'Blue lead', token: newToken(), team: 'blue', role: 'lead' },
  { id: 'blue-1', name: 'Blue one', token: newToken(), team: 'blue', role: 'teammate' },
  { id: 'loner', name: 'No team', token: newToken() },
];
const OPERATORS: TestOperatorEntry[] = [
  { id: 'op-root', name: 'Root', role: 'admin', token: newToken() },
  { id: 'op-red', name: 'Red approver', role: 'approver', token: newToken(), scope: { teams: ['red'] } },
  { id: 'op-red-plans', name: 'Red plans only', role: 'approver', token: newToken(), scope: { teams: ['red'], request_types: ['plan_approval'] } },
  { id: 'op-red-viewer', name: 'Red viewer', role: 'viewer', token: newToken(), scope: { teams: ['red'] } },
  { id: 'op-red-admin', name: 'Red admin', role: 'admin', token: newToken(), scope: { teams: ['red'] } },
];
const PLAN: Plan = { title: 'Index orders', steps: [{ id: 's1', description: 'add the index', dependencies: [], status: 'pending', tools_expected: [] }] };
const HOOKS_YAML = readFileSync(new URL('../../../.ahp/hooks.yaml', import.meta.url), 'utf8');

let gw: TestGateway;
let store: TestStore;
let approvals: ToolApprovalStore;
const agents: Record<string, AgentClient> = {};

beforeAll(async () => {
  gw = await startTestGateway({ name: 'operator-scopes', agents: AGENTS, operators: OPERATORS });
  store = await openTestStore(gw.keyPrefix, testLogger());
  approvals = createToolApprovalStore({ redis: store.redis, keys: store.keys, requests: store.stores.requests });
  for (const id of ['red-lead', 'red-1', 'blue-lead', 'blue-1', 'loner']) agents[id] = (await connectReady(gw.wsUrl, gw.agents[id]!.token)).client;
});

afterAll(async () => {
  await Promise.all(Object.values(agents).map((client) => client.close()));
  await store?.close();
  await gw?.stop();
});

async function call(operator: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; json: unknown; text: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${gw.operators[operator]!.token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${gw.httpUrl}/v1/operator${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text };
}

function errorOf(json: unknown) {
  return OperatorErrorBodySchema.parse(json).error;
}

/** Opens a request from `agentId` through its own connection (its team comes from its token). */
async function open(agentId: string, type: 'plan_approval' | 'tool_approval', target: { kind: 'operators' } | { kind: 'agent'; agent: string } = { kind: 'operators' }): Promise<string> {
  const requestId = `req_${randomUUID()}`;
  const input = { table: 'orders' };
  const payload = type === 'plan_approval' ? { plan: PLAN } : { tool: 'db.migrate', input, input_digest: toolInputDigest(input) };
  const reply = await agents[agentId]!.request({ type: 'request', id: `open-${requestId}`, request: { request_id: requestId, type, target, payload } as never });
  if (reply.type !== 'ack') throw new Error(`opening failed: ${JSON.stringify(reply)}`);
  return requestId;
}

/** The request as the fleet-wide admin reads it: state and history. */
async function asRoot(requestId: string) {
  const { status, json } = await call('op-root', 'GET', `/requests/${requestId}`);
  expect(status).toBe(200);
  return RequestDetailResponseSchema.parse(json);
}

async function requestIds(operator: string, query = ''): Promise<string[]> {
  const { status, json } = await call(operator, 'GET', `/requests${query}`);
  expect(status, query).toBe(200);
  return RequestListResponseSchema.parse(json).requests.map((request) => request.request_id);
}

async function auditFor(target: string) {
  const { json } = await call('op-root', 'GET', '/audit?action=request.decide&limit=500');
  return AuditListResponseSchema.parse(json).entries.filter((entry) => entry.target === target);
}

/**
 * Sends a hook from `agentId`'s connection and decides it with one prompt signal, as a worker
 * would; returns the signal id. (Leads only: the teammates have plans pending, which gate their tools.)
 */
async function signalFor(agentId: string): Promise<string> {
  const hook = agents[agentId]!.hook('pre-tool-use');
  const signal = promptSignal(hook.id);
  await decideAsWorker(store, hook.id, 'pre-tool-use', [signal]);
  expect((await hook.reply).type).toBe('decision');
  return signal.header.id;
}

describe('who a scoped token says it is', () => {
  it('GET /me names the scope; a fleet-wide token has none', async () => {
    expect((await call('op-red-plans', 'GET', '/me')).json).toEqual({
      operator: { id: 'op-red-plans', name: 'Red plans only', role: 'approver', scope: { teams: ['red'], request_types: ['plan_approval'] } },
    });
    expect((await call('op-root', 'GET', '/me')).json).toEqual({ operator: { id: 'op-root', name: 'Root', role: 'admin' } });
  });
});

describe('requests of another team', () => {
  it('a red approver cannot approve a blue request: 404 as if absent, the request stays pending, no decision in its history, the refusal is audited with the scope', async () => {
    const blue = await open('blue-1', 'plan_approval');
    const { status, json } = await call('op-red', 'POST', `/requests/${blue}/decision`, { approve: true, feedback: 'not mine to approve' });
    expect(status).toBe(404);
    expect(errorOf(json)).toMatchObject({ code: 'E_NOT_FOUND', message: `no request ${blue}` });
    // Exactly what an id that never existed answers: the refusal reveals nothing.
    const missing = `req_${randomUUID()}`;
    const never = await call('op-red', 'POST', `/requests/${missing}/decision`, { approve: true });
    expect(errorOf(never.json)).toMatchObject({ code: 'E_NOT_FOUND', message: `no request ${missing}` });

    const after = await asRoot(blue);
    expect(after.request.status).toBe('pending');
    expect(after.history.map((entry) => entry.event)).toEqual(['created']);
    expect(await auditFor(blue)).toMatchObject([
      { operator: { id: 'op-red', role: 'approver', scope: { teams: ['red'] } }, outcome: 'refused', details: { error_code: 'E_NOT_FOUND', status: 404 } },
    ]);
  });

  it('a session-wide approval of a blue tool approval is refused the same way (no grant recorded, nothing decided)', async () => {
    const opened = await approvals.open({
      hookId: randomUUID(),
      call: { agentId: 'blue-1', sessionId: `s-${randomUUID()}`, tool: 'bash', input: { command: 'kubectl delete deployment api' } },
      deadlineMs: 60_000,
      onExpiry: 'reject',
      rules: ['pre-tool-use/risky/kubectl'],
      now: Date.now(),
    });
    if (opened.outcome === 'conflict' || opened.outcome === 'too_many') throw new Error('conflict');
    const id = opened.state.request_id;
    const { status } = await call('op-red', 'POST', `/requests/${id}/decision`, { approve: true, scope: 'session_tool' });
    expect(status).toBe(404);
    expect((await asRoot(id)).request.status).toBe('pending');
    const grants = GrantListResponseSchema.parse((await call('op-root', 'GET', '/grants?agent=blue-1')).json).grants;
    expect(grants.filter((grant) => grant.request_id === id)).toEqual([]);
  });

  it('a red approver cannot read a blue request, finds none in any listing, and a filter naming another team is 403', async () => {
    const blue = await open('blue-1', 'plan_approval');
    const red = await open('red-1', 'plan_approval');
    const read = await call('op-red', 'GET', `/requests/${blue}`);
    expect(read.status).toBe(404);
    expect(errorOf(read.json).code).toBe('E_NOT_FOUND');
    expect((await call('op-red', 'GET', `/requests/${red}`)).status).toBe(200);

    const listed = await requestIds('op-red', '?limit=500');
    expect(listed).toContain(red);
    expect(listed).not.toContain(blue);
    expect(await requestIds('op-red', '?agent=blue-1')).toEqual([]);
    expect(await requestIds('op-red', '?target=operators&status=pending&limit=500')).not.toContain(blue);
    expect(await requestIds('op-red', '?team=red&limit=500')).toContain(red);

    const other = await call('op-red', 'GET', '/requests?team=blue');
    expect(other.status).toBe(403);
    expect(errorOf(other.json)).toMatchObject({ code: 'E_FORBIDDEN', details: { team: 'blue' } });
    // The fleet-wide admin still sees both.
    expect(await requestIds('op-root', '?limit=500')).toEqual(expect.arrayContaining([red, blue]));
  });

  it('an agent without a team is outside every team scope', async () => {
    const lonely = await open('loner', 'plan_approval');
    expect((await call('op-red', 'GET', `/requests/${lonely}`)).status).toBe(404);
    expect((await call('op-red', 'POST', `/requests/${lonely}/decision`, { approve: true })).status).toBe(404);
    expect(await requestIds('op-red', '?limit=500')).not.toContain(lonely);
    expect((await asRoot(lonely)).request.status).toBe('pending');
  });

  it('a red approver decides red requests, and the audit entry names the scope it decided under', async () => {
    const red = await open('red-1', 'plan_approval');
    const { status } = await call('op-red', 'POST', `/requests/${red}/decision`, { approve: true });
    expect(status).toBe(200);
    const after = await asRoot(red);
    expect(after.request).toMatchObject({ status: 'approved', decided_by: 'op-red' });
    expect(await auditFor(red)).toMatchObject([{ operator: { id: 'op-red', role: 'approver', scope: { teams: ['red'] } }, outcome: 'applied' }]);
  });
});

describe('request types', () => {
  it('an approver scoped to plan_approval cannot decide a tool_approval of its own team (403), which stays pending', async () => {
    const tool = await open('red-1', 'tool_approval');
    expect((await call('op-red-plans', 'GET', `/requests/${tool}`)).status).toBe(200);
    const { status, json } = await call('op-red-plans', 'POST', `/requests/${tool}/decision`, { approve: true });
    expect(status).toBe(403);
    expect(errorOf(json)).toMatchObject({ code: 'E_FORBIDDEN', details: { request_type: 'tool_approval', scope: { request_types: ['plan_approval'] } } });
    const after = await asRoot(tool);
    expect(after.request.status).toBe('pending');
    expect(after.history.map((entry) => entry.event)).toEqual(['created']);
    expect(await auditFor(tool)).toMatchObject([
      { operator: { id: 'op-red-plans', scope: { teams: ['red'], request_types: ['plan_approval'] } }, outcome: 'refused', details: { error_code: 'E_FORBIDDEN' } },
    ]);

    const plan = await open('red-1', 'plan_approval');
    expect((await call('op-red-plans', 'POST', `/requests/${plan}/decision`, { approve: false, feedback: 'smaller steps' })).status).toBe(200);
    expect((await asRoot(plan)).request.status).toBe('rejected');
  });
});

describe('agents, fleet, timelines and signals of another team', () => {
  it('lists only its teams’ agents in /agents and /fleet, with counts over them', async () => {
    const presence = AgentListResponseSchema.parse((await call('op-red', 'GET', '/agents')).json);
    expect(presence.agents.map((entry) => entry.agent.id).sort()).toEqual(['red-1', 'red-lead']);
    const fleet = FleetResponseSchema.parse((await call('op-red-viewer', 'GET', '/fleet')).json);
    expect(fleet.agents.map((row) => row.agent.id)).toEqual(['red-1', 'red-lead']);
    expect(fleet.counts.total).toBe(2);
    const all = FleetResponseSchema.parse((await call('op-root', 'GET', '/fleet')).json);
    expect(all.agents.map((row) => row.agent.id)).toEqual(['blue-1', 'blue-lead', 'loner', 'red-1', 'red-lead']);
  });

  it('searches, filters, sorts and pages the fleet on the gateway, within the token’s teams', async () => {
    const page = FleetResponseSchema.parse((await call('op-root', 'GET', '/fleet?q=LEAD&sort=agent&order=desc&limit=1')).json);
    expect(page.agents.map((row) => row.agent.id)).toEqual(['red-lead']);
    expect(page.total).toBe(2);
    expect(page.counts.total).toBe(5);
    const next = FleetResponseSchema.parse((await call('op-root', 'GET', '/fleet?q=LEAD&sort=agent&order=desc&limit=1&offset=1')).json);
    expect(next.agents.map((row) => row.agent.id)).toEqual(['blue-lead']);
    expect(next.offset).toBe(1);
    // A scoped token's search never reaches another team, and naming another team is refused.
    const red = FleetResponseSchema.parse((await call('op-red-viewer', 'GET', '/fleet?q=lead')).json);
    expect(red.agents.map((row) => row.agent.id)).toEqual(['red-lead']);
    expect((await call('op-red-viewer', 'GET', '/fleet?team=blue')).status).toBe(403);
    expect((await call('op-root', 'GET', '/fleet?sort=secret')).status).toBe(400);
    expect((await call('op-root', 'GET', '/fleet?limit=9999')).status).toBe(400);
  });

  it('reads a red agent’s timeline, and gets 404 for a blue one', async () => {
    expect((await call('op-red-viewer', 'GET', '/agents/red-1/timeline')).status).toBe(200);
    const blue = await call('op-red-viewer', 'GET', '/agents/blue-1/timeline');
    expect(blue.status).toBe(404);
    expect(errorOf(blue.json)).toMatchObject({ code: 'E_NOT_FOUND' });
  });

  it('lists, exports and counts only red agents’ signals, whatever the filter', async () => {
    const red = await signalFor('red-lead');
    const blue = await signalFor('blue-lead');
    const lines = SignalLogListResponseSchema.parse((await call('op-red-viewer', 'GET', '/signals')).json).lines;
    expect(lines.map((line) => line.signal_id)).toContain(red);
    expect(lines.map((line) => line.signal_id)).not.toContain(blue);
    expect(lines.every((line) => line.agent_id.startsWith('red-'))).toBe(true);
    expect(SignalLogListResponseSchema.parse((await call('op-red-viewer', 'GET', '/signals?agent=blue-lead')).json).lines).toEqual([]);

    const exported = await call('op-red-viewer', 'GET', '/signals/export');
    expect(exported.status).toBe(200);
    expect(exported.text).toContain(red);
    expect(exported.text).not.toContain(blue);

    const stats = SignalLogStatsSchema.parse((await call('op-red-viewer', 'GET', '/signals/stats')).json);
    const everything = SignalLogStatsSchema.parse((await call('op-root', 'GET', '/signals/stats')).json);
    expect(stats.total.signals).toBe(lines.length);
    expect(everything.total.signals).toBeGreaterThan(stats.total.signals);
  });
});

describe('grants of another team', () => {
  async function grantFor(agentId: string): Promise<{ grantId: string; state: ProtocolState }> {
    const opened = await approvals.open({
      hookId: randomUUID(),
      call: { agentId, sessionId: `s-${randomUUID()}`, tool: 'bash', input: { command: `make build-${randomUUID().slice(0, 6)}` } },
      deadlineMs: 60_000,
      onExpiry: 'reject',
      rules: ['pre-tool-use/risky/kubectl'],
      now: Date.now(),
    });
    if (opened.outcome === 'conflict' || opened.outcome === 'too_many') throw new Error('conflict');
    const decided = await call('op-root', 'POST', `/requests/${opened.state.request_id}/decision`, { approve: true, scope: 'session' });
    expect(decided.status).toBe(200);
    return { grantId: (decided.json as { grant: { grant_id: string } }).grant.grant_id, state: opened.state };
  }

  it('lists only red grants; revoking a blue grant is 404 and leaves it in force', async () => {
    const red = await grantFor('red-1');
    const blue = await grantFor('blue-1');
    const listed = GrantListResponseSchema.parse((await call('op-red', 'GET', '/grants')).json).grants.map((grant) => grant.grant_id);
    expect(listed).toContain(red.grantId);
    expect(listed).not.toContain(blue.grantId);
    expect(GrantListResponseSchema.parse((await call('op-red', 'GET', '/grants?agent=blue-1')).json).grants).toEqual([]);

    const revoke = await call('op-red', 'DELETE', `/grants/${blue.grantId}`);
    expect(revoke.status).toBe(404);
    expect(errorOf(revoke.json)).toMatchObject({ code: 'E_NOT_FOUND', message: `no grant ${blue.grantId}` });
    const still = GrantListResponseSchema.parse((await call('op-root', 'GET', '/grants?agent=blue-1')).json).grants.find((grant) => grant.grant_id === blue.grantId);
    expect(still?.revoked_at).toBeUndefined();

    // Grants come from tool approvals: an operator that may not decide those may not revoke them.
    const plansOnly = await call('op-red-plans', 'DELETE', `/grants/${red.grantId}`);
    expect(plansOnly.status).toBe(403);
    expect((await call('op-red', 'DELETE', `/grants/${red.grantId}`)).json).toMatchObject({ outcome: 'revoked', grant: { revoked_by: 'op-red' } });
  });
});

describe('what a scoped admin may not do', () => {
  it('cannot publish the fleet-wide hooks.yaml, read the audit trail or the notification deliveries (403), and nothing is published', async () => {
    const before = await call('op-root', 'GET', '/config/history');
    const publish = await call('op-red-admin', 'POST', '/config', { source: `${HOOKS_YAML}\n# red admin was here\n` });
    expect(publish.status).toBe(403);
    expect(errorOf(publish.json)).toMatchObject({ code: 'E_FORBIDDEN', details: { scope: { teams: ['red'] } } });
    expect((await call('op-root', 'GET', '/config/history')).json).toEqual(before.json);
    const audit = await call('op-red-admin', 'GET', '/audit');
    expect(audit.status).toBe(403);
    expect(errorOf(audit.json).code).toBe('E_FORBIDDEN');
    // Notification deliveries name requests of every team.
    const deliveries = await call('op-red-admin', 'GET', '/notifications/deliveries');
    expect(deliveries.status).toBe(403);
    expect((await call('op-root', 'GET', '/notifications/deliveries')).json).toEqual({ deliveries: [], dead_letters: [] });
    // Reading the configuration is not team data: any scope may.
    expect([200, 404]).toContain((await call('op-red-viewer', 'GET', '/config')).status);
  });

  it('decides a request addressed to an agent of its team, but not one of another team', async () => {
    const red = await open('red-1', 'plan_approval', { kind: 'agent', agent: 'red-lead' });
    const blue = await open('blue-1', 'plan_approval', { kind: 'agent', agent: 'blue-lead' });
    expect((await call('op-red-admin', 'POST', `/requests/${red}/decision`, { approve: true })).status).toBe(200);
    expect((await call('op-red-admin', 'POST', `/requests/${blue}/decision`, { approve: true })).status).toBe(404);
    expect((await asRoot(blue)).request.status).toBe('pending');
  });
});

/** An open SSE stream: every parsed event so far, and a way to wait for one. */
async function openLive(operator: string) {
  const abort = new AbortController();
  const response = await fetch(`${gw.httpUrl}/v1/operator/live`, { headers: { authorization: `Bearer ${gw.operators[operator]!.token}` }, signal: abort.signal });
  expect(response.status).toBe(200);
  const events: OperatorLiveEvent[] = [];
  const waiters: (() => void)[] = [];
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const data = buffer.slice(0, end).split('\n').find((line) => line.startsWith('data: '));
          buffer = buffer.slice(end + 2);
          if (data === undefined) continue;
          events.push(OperatorLiveEventSchema.parse(JSON.parse(data.slice(6))));
          for (const wake of waiters.splice(0)) wake();
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  return {
    events,
    async next(match: (event: OperatorLiveEvent) => boolean, what: string): Promise<OperatorLiveEvent> {
      for (;;) {
        const found = events.find(match);
        if (found !== undefined) return found;
        await Promise.race([
          new Promise<void>((resolve) => waiters.push(resolve)),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no live event: ${what}; got ${JSON.stringify(events)}`)), 10_000)),
        ]);
      }
    },
    close: () => abort.abort(),
  };
}

/** The agents a live event is about (empty for ready and config, which concern no agent). */
function agentsOf(event: OperatorLiveEvent): string[] {
  switch (event.kind) {
    case 'agent':
      return [event.agent.agent.id];
    case 'timeline':
      return [event.entry.agent_id];
    case 'signals':
      return event.agent_ids;
    case 'request':
      return event.sender === undefined ? ['(unknown sender)'] : [event.sender];
    default:
      return [];
  }
}

describe('the live feed of a scoped operator', () => {
  it('carries its teams’ agent, request, timeline and signal events and never another team’s', async () => {
    const root = await openLive('op-root');
    const red = await openLive('op-red-viewer');
    try {
      await root.next((e) => e.kind === 'ready', 'root ready');
      await red.next((e) => e.kind === 'ready', 'red ready');

      // Blue activity of every kind; the fleet-wide feed sees all of it.
      const blueRequest = await open('blue-1', 'plan_approval');
      await call('op-root', 'POST', `/requests/${blueRequest}/decision`, { approve: false });
      const blueEvent = await agents['blue-1']!.request({ type: 'event', id: randomUUID(), event: { kind: 'control_signal', control_signal: { control: 'step_done', step_id: 's1', format: 'structured' } } });
      expect(blueEvent.type).toBe('ack');
      await signalFor('blue-lead');
      await root.next((e) => e.kind === 'request' && e.request_id === blueRequest && e.status === 'rejected', 'blue request rejected');
      await root.next((e) => e.kind === 'timeline' && e.entry.agent_id === 'blue-1', 'blue timeline');
      await root.next((e) => e.kind === 'signals' && e.agent_ids.includes('blue-lead'), 'blue signals');
      await root.next((e) => e.kind === 'agent' && e.agent.agent.id === 'blue-lead' && e.agent.last_decision !== undefined, 'blue agent row');

      // Then red activity: once the red feed has it, it has had its chance at everything blue.
      const redRequest = await open('red-1', 'plan_approval');
      await signalFor('red-lead');
      await red.next((e) => e.kind === 'request' && e.request_id === redRequest, 'red request');
      await red.next((e) => e.kind === 'signals' && e.agent_ids.includes('red-lead'), 'red signals');
      await red.next((e) => e.kind === 'agent' && e.agent.agent.id === 'red-lead', 'red agent row');
      await root.next((e) => e.kind === 'request' && e.request_id === redRequest, 'red request on the fleet-wide feed');

      const seen = red.events.flatMap(agentsOf);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.filter((id) => !id.startsWith('red-'))).toEqual([]);
      expect(root.events.flatMap(agentsOf)).toEqual(expect.arrayContaining(['blue-1', 'blue-lead', 'red-1', 'red-lead']));
    } finally {
      root.close();
      red.close();
    }
  });
});
