import type { AgentIdentity, OperatorIdentity, OperatorLiveEvent } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import type { AgentAuthService } from '../auth/agent-auth.service.js';
import { OperatorScopeService } from './operator-scope.service.js';

const AGENTS: Record<string, AgentIdentity> = {
  'red-1': { id: 'red-1', name: 'Red', team: 'red' },
  'blue-1': { id: 'blue-1', name: 'Blue', team: 'blue' },
  loner: { id: 'loner', name: 'Loner' },
};
const scopes = new OperatorScopeService({ identityOf: (id: string) => AGENTS[id] } as unknown as AgentAuthService);
const red: OperatorIdentity = { id: 'op-red', name: 'Red', role: 'viewer', scope: { teams: ['red'] } };
const plansOnly: OperatorIdentity = { id: 'op-plans', name: 'Plans', role: 'approver', scope: { request_types: ['plan_approval'] } };
const root: OperatorIdentity = { id: 'op-root', name: 'Root', role: 'admin' };
const at = '2026-11-25T10:00:00.000Z';

function request(sender: string | undefined): OperatorLiveEvent {
  return { kind: 'request', request_id: `req_${sender ?? 'none'}`, type: 'plan_approval', event: 'created', status: 'pending', actor: { kind: 'agent', id: sender ?? 'x' }, at, ...(sender === undefined ? {} : { sender }) };
}

describe('OperatorScopeService', () => {
  it('sees agents of its teams only, never one without a team or unknown', () => {
    expect(scopes.seesAgent(red, 'red-1')).toBe(true);
    expect(scopes.seesAgent(red, 'blue-1')).toBe(false);
    expect(scopes.seesAgent(red, 'loner')).toBe(false);
    expect(scopes.seesAgent(red, 'ghost')).toBe(false);
    expect(scopes.seesAgent(root, 'ghost')).toBe(true);
    expect(scopes.seesAgent(plansOnly, 'blue-1')).toBe(true);
  });

  it('filters the live feed: requests by sender (none: withheld), signal hints trimmed to its agents, ready and config kept', () => {
    const events: OperatorLiveEvent[] = [
      { kind: 'ready', gateway_id: 'gw-1', at },
      request('red-1'),
      request('blue-1'),
      request(undefined),
      { kind: 'signals', agent_ids: ['blue-1', 'red-1'], at },
      { kind: 'signals', agent_ids: ['blue-1'], at },
      { kind: 'config', version: 3, at },
    ];
    expect(scopes.liveEvents(red, events)).toEqual([
      { kind: 'ready', gateway_id: 'gw-1', at },
      request('red-1'),
      { kind: 'signals', agent_ids: ['red-1'], at },
      { kind: 'config', version: 3, at },
    ]);
    expect(scopes.liveEvents(root, events)).toBe(events);
    expect(scopes.liveEvents(plansOnly, events)).toBe(events);
  });

  it('refuses a list filter naming a team outside the scope with 403', () => {
    expect(() => scopes.checkTeamFilter(red, 'red')).not.toThrow();
    expect(() => scopes.checkTeamFilter(red, undefined)).not.toThrow();
    expect(() => scopes.checkTeamFilter(root, 'blue')).not.toThrow();
    expect(() => scopes.checkTeamFilter(red, 'blue')).toThrow(expect.objectContaining({ error: expect.objectContaining({ code: 'E_FORBIDDEN' }) }));
  });
});
