import { describe, expect, it } from 'vitest';
import { FLEET_WORKING_WINDOW_MS, type FleetAgent, type FleetResponse } from '@ahp/protocol';
import { displayCounts, displayStatus, upsertAgent } from './fleet-state';

const row = (id: string, overrides: Partial<FleetAgent> = {}): FleetAgent => ({
  agent: { id, name: id.toUpperCase() },
  status: 'connected',
  last_seen_at: '2026-01-01T10:00:00.000Z',
  hooks_in_flight: 0,
  ...overrides,
});

const fleet = (agents: FleetAgent[]): FleetResponse => ({ agents, counts: { total: agents.length, connected: agents.length, working: 0, idle: 0, offline: 0 }, gateways: [] });

describe('upsertAgent', () => {
  it('replaces the row of a known agent and recounts', () => {
    const next = upsertAgent(fleet([row('a'), row('b')]), row('b', { status: 'offline' }));
    expect(next.agents.map((agent) => `${agent.agent.id}:${agent.status}`)).toEqual(['a:connected', 'b:offline']);
    expect(next.counts).toEqual({ total: 2, connected: 1, working: 0, idle: 0, offline: 1 });
  });

  it('adds a new agent in id order', () => {
    const next = upsertAgent(fleet([row('a'), row('c')]), row('b'));
    expect(next.agents.map((agent) => agent.agent.id)).toEqual(['a', 'b', 'c']);
    expect(next.counts.total).toBe(3);
  });
});

describe('displayStatus', () => {
  const hookAt = '2026-01-01T10:00:00.000Z';
  const working = row('w', { status: 'working', last_hook: { hook_id: '00000000-0000-4000-8000-000000000001', trigger: 'pre-tool-use', at: hookAt } });
  const t0 = Date.parse(hookAt);

  it('keeps working within the window and turns idle after it', () => {
    expect(displayStatus(working, t0 + FLEET_WORKING_WINDOW_MS)).toBe('working');
    expect(displayStatus(working, t0 + FLEET_WORKING_WINDOW_MS + 1)).toBe('idle');
  });

  it('keeps working while a hook is in flight, and leaves other statuses alone', () => {
    expect(displayStatus({ ...working, hooks_in_flight: 1 }, t0 + 10 * FLEET_WORKING_WINDOW_MS)).toBe('working');
    expect(displayStatus(row('o', { status: 'offline' }), t0)).toBe('offline');
  });

  it('counts what it shows', () => {
    expect(displayCounts([working, row('c'), row('o', { status: 'offline' })], t0 + 2 * FLEET_WORKING_WINDOW_MS)).toEqual({ total: 3, connected: 1, working: 0, idle: 1, offline: 1 });
  });
});
