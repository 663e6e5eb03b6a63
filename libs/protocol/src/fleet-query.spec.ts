import { describe, expect, it } from 'vitest';
import { FleetQuerySchema, type FleetAgent } from './fleet.js';
import { fleetRowMatches, queryFleet } from './fleet-query.js';

function row(id: string, status: FleetAgent['status'], team: string | undefined, lastSeen: string, gateway?: string): FleetAgent {
  return {
    agent: { id, name: `Agent ${id.toUpperCase()}`, ...(team ? { team } : {}) },
    status,
    ...(gateway ? { gateway_id: gateway, session_id: `s-${id}` } : {}),
    last_seen_at: lastSeen,
    hooks_in_flight: 0,
  } as FleetAgent;
}

const rows = [
  row('delta', 'offline', 'red', '2026-11-26T10:00:04.000Z'),
  row('alpha', 'working', 'blue', '2026-11-26T10:00:01.000Z', 'gw-1'),
  row('charlie', 'idle', 'red', '2026-11-26T10:00:03.000Z', 'gw-2'),
  row('bravo', 'connected', undefined, '2026-11-26T10:00:02.000Z', 'gw-1'),
  row('echo', 'working', 'red', '2026-11-26T10:00:05.000Z', 'gw-2'),
];
const ids = (query: Record<string, string>) => queryFleet(rows, FleetQuerySchema.parse(query)).agents.map((r) => r.agent.id);

describe('queryFleet', () => {
  it('lists everyone by agent id by default', () => {
    expect(ids({})).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'echo']);
    expect(queryFleet(rows, FleetQuerySchema.parse({})).total).toBe(5);
  });

  it('searches id, name and team without regard to case', () => {
    expect(ids({ q: 'ALP' })).toEqual(['alpha']);
    expect(ids({ q: 'agent c' })).toEqual(['charlie']);
    expect(ids({ q: 'red' })).toEqual(['charlie', 'delta', 'echo']);
    expect(ids({ q: '  ' })).toHaveLength(5);
  });

  it('filters by status, team and gateway together', () => {
    expect(ids({ status: 'working' })).toEqual(['alpha', 'echo']);
    expect(ids({ team: 'red', gateway: 'gw-2' })).toEqual(['charlie', 'echo']);
    expect(ids({ team: 'red', status: 'offline' })).toEqual(['delta']);
    expect(queryFleet([{ ...rows[0]!, client: 'codex' }, rows[1]!], FleetQuerySchema.parse({ client: 'codex' })).agents.map((r) => r.agent.id)).toEqual(['delta']);
    expect(queryFleet([{ ...rows[0]!, client: 'codex' }, rows[1]!], FleetQuerySchema.parse({ client: 'sdk' })).agents.map((r) => r.agent.id)).toEqual(['alpha']);
  });

  it('filters by the last decision: none, allowed, denied, awaiting approval, failure policy', () => {
    const at = '2026-11-26T10:00:00.000Z';
    const hook_id = '00000000-0000-4000-8000-000000000001';
    const decided = [
      { ...rows[0]!, last_decision: { hook_id, allowed: true, intensity: null, decided_by: 'oracles' as const, at } },
      { ...rows[1]!, last_decision: { hook_id, allowed: false, intensity: 'block' as const, decided_by: 'oracles' as const, at } },
      {
        ...rows[2]!,
        last_decision: { hook_id, allowed: false, intensity: 'block' as const, decided_by: 'oracles' as const, at, awaiting_approval: { request_id: 'req-1', deadline: at } },
      },
      { ...rows[3]!, last_decision: { hook_id, allowed: false, intensity: null, decided_by: 'failure_policy' as const, at } },
      rows[4]!,
    ];
    const by = (decision: string) => queryFleet(decided, FleetQuerySchema.parse({ decision })).agents.map((r) => r.agent.id);
    expect(by('allowed')).toEqual(['delta']);
    expect(by('denied')).toEqual(['alpha']);
    expect(by('awaiting_approval')).toEqual(['charlie']);
    expect(by('failure_policy')).toEqual(['bravo']);
    expect(by('none')).toEqual(['echo']);
    expect(FleetQuerySchema.safeParse({ decision: 'blocked' }).success).toBe(false);
  });

  it('sorts by status (working first), team and last seen, ties by agent id, either way', () => {
    expect(ids({ sort: 'status' })).toEqual(['alpha', 'echo', 'bravo', 'charlie', 'delta']);
    expect(ids({ sort: 'last_seen', order: 'desc' })).toEqual(['echo', 'delta', 'charlie', 'bravo', 'alpha']);
    expect(ids({ sort: 'team' })).toEqual(['bravo', 'alpha', 'charlie', 'delta', 'echo']);
  });

  it('pages without overlap and counts every match', () => {
    const first = queryFleet(rows, FleetQuerySchema.parse({ sort: 'status', limit: '2' }));
    const second = queryFleet(rows, FleetQuerySchema.parse({ sort: 'status', limit: '2', offset: '2' }));
    const third = queryFleet(rows, FleetQuerySchema.parse({ sort: 'status', limit: '2', offset: '4' }));
    expect([...first.agents, ...second.agents, ...third.agents].map((r) => r.agent.id)).toEqual(['alpha', 'echo', 'bravo', 'charlie', 'delta']);
    expect([first.total, second.total, third.total]).toEqual([5, 5, 5]);
    expect(queryFleet(rows, FleetQuerySchema.parse({ offset: '50' })).agents).toEqual([]);
  });

  it('tells whether one live row belongs to a filtered view', () => {
    expect(fleetRowMatches(rows[4]!, { q: 'ech', status: 'working' })).toBe(true);
    expect(fleetRowMatches(rows[4]!, { team: 'blue' })).toBe(false);
  });

  it('refuses what it does not understand', () => {
    expect(FleetQuerySchema.safeParse({ sort: 'name' }).success).toBe(false);
    expect(FleetQuerySchema.safeParse({ limit: '0' }).success).toBe(false);
    expect(FleetQuerySchema.safeParse({ limit: '5001' }).success).toBe(false);
    expect(FleetQuerySchema.safeParse({ stauts: 'working' }).success).toBe(false);
    expect(FleetQuerySchema.safeParse({ q: 'x'.repeat(101) }).success).toBe(false);
  });
});
