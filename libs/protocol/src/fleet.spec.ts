import { describe, expect, it } from 'vitest';
import { countFleet, FleetAgentSchema, OperatorLiveEventSchema } from './fleet.js';

const row = {
  agent: { id: 'alice', name: 'Alice', team: 'core', role: 'teammate' },
  status: 'working',
  gateway_id: 'gw-1',
  session_id: 'sess-1',
  connected_at: '2026-11-22T10:00:00.000Z',
  last_seen_at: '2026-11-22T10:00:05.000Z',
  last_hook: { hook_id: '0b5f0d0e-8c1a-4c59-9d57-2f3b1b1f3c11', trigger: 'pre-tool-use', tool: 'bash', at: '2026-11-22T10:00:05.000Z' },
  hooks_in_flight: 1,
};

describe('FleetAgentSchema', () => {
  it('accepts a working agent with its last hook', () => {
    expect(FleetAgentSchema.parse(row).status).toBe('working');
  });

  it('refuses an unknown status and a negative in-flight count', () => {
    expect(FleetAgentSchema.safeParse({ ...row, status: 'busy' }).success).toBe(false);
    expect(FleetAgentSchema.safeParse({ ...row, hooks_in_flight: -1 }).success).toBe(false);
  });
});

describe('countFleet', () => {
  it('counts every status and the total', () => {
    const statuses = ['working', 'idle', 'idle', 'offline', 'connected'] as const;
    expect(countFleet(statuses.map((status) => ({ status })))).toEqual({ total: 5, connected: 1, working: 1, idle: 2, offline: 1 });
  });

  it('is all zeros for an empty fleet', () => {
    expect(countFleet([])).toEqual({ total: 0, connected: 0, working: 0, idle: 0, offline: 0 });
  });
});

describe('OperatorLiveEventSchema', () => {
  it('parses each kind', () => {
    const events = [
      { kind: 'ready', gateway_id: 'gw-1', at: '2026-11-22T10:00:00.000Z' },
      { kind: 'agent', agent: row },
      {
        kind: 'request',
        request_id: 'req_1',
        type: 'plan_approval',
        event: 'approved',
        status: 'approved',
        actor: { kind: 'operator', id: 'op-maria' },
        at: '2026-11-22T10:00:00.000Z',
      },
      { kind: 'signals', agent_ids: ['alice'], at: '2026-11-22T10:00:00.000Z' },
      { kind: 'config', version: 3, at: '2026-11-22T10:00:00.000Z' },
    ];
    for (const event of events) expect(OperatorLiveEventSchema.parse(event).kind).toBe(event.kind);
  });

  it('refuses an unknown kind and extra fields', () => {
    expect(OperatorLiveEventSchema.safeParse({ kind: 'gossip', at: '2026-11-22T10:00:00.000Z' }).success).toBe(false);
    expect(OperatorLiveEventSchema.safeParse({ kind: 'config', version: 3, at: '2026-11-22T10:00:00.000Z', extra: 1 }).success).toBe(false);
  });
});
