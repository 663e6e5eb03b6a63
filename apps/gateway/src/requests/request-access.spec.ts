import type { AgentIdentity, OpenRequest, ProtocolState } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { checkAgentAnswer, checkOpenRequest, checkOperatorDecision, checkOperatorScope, checkSend, sameTeam } from './request-access.js';

const lead: AgentIdentity = { id: 'lead', name: 'Lead', team: 'red', role: 'lead' };
const alice: AgentIdentity = { id: 'alice', name: 'Alice', team: 'red', role: 'teammate' };
const bob: AgentIdentity = { id: 'bob', name: 'Bob', team: 'red', role: 'teammate' };
const blueLead: AgentIdentity = { id: 'blue-lead', name: 'Blue lead', team: 'blue', role: 'lead' };
const loner: AgentIdentity = { id: 'loner', name: 'Loner' };
const agents = new Map([lead, alice, bob, blueLead, loner].map((agent) => [agent.id, agent]));
const lookup = (id: string) => agents.get(id);

const plan = { title: 'Index orders', steps: [{ id: 's1', description: 'add the index', dependencies: [], status: 'pending' as const, tools_expected: [] }] };
const toAgent = (agent: string) => ({ kind: 'agent' as const, agent });
const operators = { kind: 'operators' as const };

function open(type: 'shutdown' | 'plan_approval', target: OpenRequest['target']): OpenRequest {
  return type === 'shutdown'
    ? { request_id: 'req_1', type, target, payload: {} }
    : { request_id: 'req_1', type, target, payload: { plan } };
}

function state(target: ProtocolState['target']): ProtocolState {
  return { request_id: 'req_1', type: 'plan_approval', sender: 'alice', target, status: 'pending', payload: { plan }, created_at: '2026-02-09T10:00:00Z', updated_at: '2026-02-09T10:00:00Z' };
}

describe('sameTeam / checkSend', () => {
  it('connects teammates only; agents without a team have none', () => {
    expect(sameTeam(alice, bob)).toBe(true);
    expect(sameTeam(alice, blueLead)).toBe(false);
    expect(sameTeam(loner, loner)).toBe(false);
    expect(checkSend(alice, 'lead', lookup)).toBeNull();
    expect(checkSend(alice, 'blue-lead', lookup)?.code).toBe('E_FORBIDDEN');
    expect(checkSend(alice, 'ghost', lookup)).toMatchObject({ code: 'E_NOT_FOUND', details: { agent: 'ghost' } });
  });
});

describe('checkOpenRequest', () => {
  it('lets the lead ask a teammate to shut down, and nobody else', () => {
    expect(checkOpenRequest(lead, open('shutdown', toAgent('alice')), lookup)).toBeNull();
    expect(checkOpenRequest(alice, open('shutdown', toAgent('bob')), lookup)?.message).toMatch(/only the team's lead/);
    expect(checkOpenRequest(blueLead, open('shutdown', toAgent('alice')), lookup)?.code).toBe('E_FORBIDDEN');
    expect(checkOpenRequest(lead, open('shutdown', operators), lookup)?.code).toBe('E_FORBIDDEN');
  });

  it('sends plans to the own lead or to operators', () => {
    expect(checkOpenRequest(alice, open('plan_approval', toAgent('lead')), lookup)).toBeNull();
    expect(checkOpenRequest(alice, open('plan_approval', operators), lookup)).toBeNull();
    expect(checkOpenRequest(loner, open('plan_approval', operators), lookup)).toBeNull();
    expect(checkOpenRequest(alice, open('plan_approval', toAgent('bob')), lookup)?.message).toMatch(/not the lead/);
    expect(checkOpenRequest(alice, open('plan_approval', toAgent('blue-lead')), lookup)?.message).toMatch(/not in your team/);
    expect(checkOpenRequest(lead, open('plan_approval', toAgent('lead')), lookup)?.message).toMatch(/own sender/);
    expect(checkOpenRequest(alice, open('plan_approval', toAgent('ghost')), lookup)?.code).toBe('E_NOT_FOUND');
  });

  it('keeps the ids of approvals that rules open (req_tool_…) to the control plane', () => {
    const planted: OpenRequest = {
      request_id: 'req_tool_0b9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b',
      type: 'tool_approval',
      target: operators,
      payload: { tool: 'bash', input: { command: 'ls' }, input_digest: 'a'.repeat(64) },
    };
    expect(checkOpenRequest(alice, planted, lookup)).toMatchObject({ code: 'E_FORBIDDEN', details: { request_id: planted.request_id } });
    expect(checkOpenRequest(alice, { ...planted, request_id: 'req_toolbox' }, lookup)).toBeNull();
  });

  it('refuses a tool approval of an agent that names a rule, as if a rule had asked for it', () => {
    const copy: OpenRequest = {
      request_id: 'req_copy',
      type: 'tool_approval',
      target: toAgent('lead'),
      payload: { tool: 'bash', input: { command: 'kubectl delete deployment api' }, input_digest: 'a'.repeat(64) },
    };
    expect(checkOpenRequest(alice, copy, lookup)).toBeNull();
    for (const claim of [{ rule: 'pre-tool-use/prod-guard/kubectl-delete' }, { rules: ['pre-tool-use/prod-guard/kubectl-delete'] }]) {
      if (copy.type !== 'tool_approval') throw new Error('not a tool approval');
      const claimed: OpenRequest = { ...copy, payload: { ...copy.payload, ...claim } };
      expect(checkOpenRequest(alice, claimed, lookup)).toMatchObject({ code: 'E_FORBIDDEN', details: { request_id: 'req_copy' } });
      expect(checkOpenRequest(alice, { ...claimed, target: operators }, lookup)?.code).toBe('E_FORBIDDEN');
    }
  });
});

describe('checkAgentAnswer', () => {
  it('lets only the addressee answer', () => {
    expect(checkAgentAnswer(state(toAgent('lead')), 'lead')).toBeNull();
    expect(checkAgentAnswer(state(toAgent('lead')), 'bob')).toMatchObject({ code: 'E_FORBIDDEN', details: { request_id: 'req_1' } });
    expect(checkAgentAnswer(state(operators), 'lead')?.message).toMatch(/operator API/);
  });
});

describe('checkOperatorDecision', () => {
  it('needs approver for operator requests and admin to decide in place of an agent', () => {
    expect(checkOperatorDecision(state(operators), { id: 'op-a', name: 'A', role: 'approver' })).toBeNull();
    expect(checkOperatorDecision(state(operators), { id: 'op-v', name: 'V', role: 'viewer' })).toMatchObject({
      code: 'E_FORBIDDEN',
      details: { role: 'viewer', required_role: 'approver' },
    });
    expect(checkOperatorDecision(state(toAgent('lead')), { id: 'op-a', name: 'A', role: 'approver' })?.details).toMatchObject({ required_role: 'admin' });
    expect(checkOperatorDecision(state(toAgent('lead')), { id: 'op-x', name: 'X', role: 'admin' })).toBeNull();
  });
});

describe('checkOperatorScope', () => {
  const fleetWide = { id: 'op-root', name: 'Root', role: 'admin' as const };
  const red = { id: 'op-red', name: 'Red', role: 'approver' as const, scope: { teams: ['red'] } };
  const plansOnly = { id: 'op-plans', name: 'Plans', role: 'approver' as const, scope: { request_types: ['tool_approval' as const] } };

  it('lets a fleet-wide token through, and a team-scoped one for its own team only', () => {
    expect(checkOperatorScope(state(operators), 'blue', fleetWide)).toBeNull();
    expect(checkOperatorScope(state(operators), 'red', red)).toBeNull();
  });

  it('answers another team, or no team, exactly as a request that does not exist', () => {
    for (const team of ['blue', undefined]) {
      expect(checkOperatorScope(state(operators), team, red)).toEqual({ code: 'E_NOT_FOUND', message: 'no request req_1', retryable: false, details: { request_id: 'req_1' } });
    }
  });

  it('refuses a request type the scope does not name with 403', () => {
    expect(checkOperatorScope(state(operators), 'red', plansOnly)).toMatchObject({ code: 'E_FORBIDDEN', details: { request_type: 'plan_approval' } });
  });
});
