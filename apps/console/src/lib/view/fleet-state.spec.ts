import { describe, expect, it } from 'vitest';
import { FLEET_WORKING_WINDOW_MS, type FleetAgent, type FleetResponse } from '@ahp/protocol';
import { applyLiveRow, displayStatus, upsertAgent, type FleetViewQuery } from './fleet-state';

const row = (id: string, overrides: Partial<FleetAgent> = {}): FleetAgent => ({
  agent: { id, name: id.toUpperCase() },
  status: 'connected',
  last_seen_at: '2026-01-01T10:00:00.000Z',
  hooks_in_flight: 0,
  ...overrides,
});

const fleet = (agents: FleetAgent[]): FleetResponse => ({ agents, total: agents.length, offset: 0, counts: { total: agents.length, connected: agents.length, working: 0, idle: 0, offline: 0 }, gateways: [] });

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

describe('applyLiveRow', () => {
  const byId: FleetViewQuery = { sort: 'agent', order: 'asc', offset: 0, limit: 3 };

  it('replaces a row on the page where it is, and drops it when it stops matching the filters', () => {
    const page = fleet([row('a'), row('b'), row('c')]);
    expect(applyLiveRow(page, row('b', { status: 'working' }), byId).agents.map((agent) => `${agent.agent.id}:${agent.status}`)).toEqual(['a:connected', 'b:working', 'c:connected']);
    expect(applyLiveRow(page, row('b', { status: 'offline' }), { ...byId, status: 'connected' }).agents.map((agent) => agent.agent.id)).toEqual(['a', 'c']);
  });

  it('adds a matching row that sorts inside a full page, pushing the last one out, and ignores one that sorts after it', () => {
    const page = fleet([row('a'), row('c'), row('e')]);
    expect(applyLiveRow(page, row('b'), byId).agents.map((agent) => agent.agent.id)).toEqual(['a', 'b', 'c']);
    expect(applyLiveRow(page, row('f'), byId)).toBe(page);
    expect(applyLiveRow(fleet([row('a')]), row('z'), byId).agents.map((agent) => agent.agent.id)).toEqual(['a', 'z']);
  });

  it('never adds a row the search does not match', () => {
    const page = fleet([row('alpha')]);
    expect(applyLiveRow(page, row('bravo'), { ...byId, q: 'alp' })).toBe(page);
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
});
