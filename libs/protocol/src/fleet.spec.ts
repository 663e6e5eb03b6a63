import { describe, expect, it } from 'vitest';
import { countFleet, FLEET_WORKING_WINDOW_MS, FleetAgentSchema, fleetStatus, LATENCY_BUCKET_BOUNDS_MS, latencyBucket, latencyPercentiles, OperatorLiveEventSchema } from './fleet.js';

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

  it('carries a paused call as awaiting approval on the last decision', () => {
    const waiting = {
      ...row,
      last_decision: {
        hook_id: row.last_hook.hook_id,
        allowed: false,
        intensity: 'block',
        decided_by: 'oracles',
        at: '2026-11-22T10:00:05.000Z',
        awaiting_approval: { request_id: 'req_7', deadline: '2026-11-22T10:15:05.000Z' },
      },
    };
    expect(FleetAgentSchema.parse(waiting).last_decision?.awaiting_approval).toEqual({ request_id: 'req_7', deadline: '2026-11-22T10:15:05.000Z' });
    expect(FleetAgentSchema.safeParse({ ...waiting, last_decision: { ...waiting.last_decision, awaiting_approval: { request_id: 'req_7' } } }).success).toBe(false);
  });

  it('refuses an unknown kind and extra fields', () => {
    expect(OperatorLiveEventSchema.safeParse({ kind: 'gossip', at: '2026-11-22T10:00:00.000Z' }).success).toBe(false);
    expect(OperatorLiveEventSchema.safeParse({ kind: 'config', version: 3, at: '2026-11-22T10:00:00.000Z', extra: 1 }).success).toBe(false);
  });
});

describe('fleetStatus', () => {
  const now = Date.parse('2026-11-22T10:00:00.000Z');
  const base = { connected: true, hooks_in_flight: 0, last_hook_at_ms: undefined, connected_at_ms: now - 60_000 };

  it('is offline when not connected, whatever else is true', () => {
    expect(fleetStatus({ ...base, connected: false, hooks_in_flight: 3 }, now)).toBe('offline');
  });

  it('is connected before the first hook of this connection', () => {
    expect(fleetStatus(base, now)).toBe('connected');
    expect(fleetStatus({ ...base, last_hook_at_ms: now - 120_000 }, now)).toBe('connected');
  });

  it('is working with a hook in flight or a recent hook, idle after the window', () => {
    expect(fleetStatus({ ...base, hooks_in_flight: 1 }, now)).toBe('working');
    expect(fleetStatus({ ...base, last_hook_at_ms: now - FLEET_WORKING_WINDOW_MS }, now)).toBe('working');
    expect(fleetStatus({ ...base, last_hook_at_ms: now - FLEET_WORKING_WINDOW_MS - 1 }, now)).toBe('idle');
  });
});

describe('latency histogram', () => {
  it('puts a latency in the first bucket whose bound is at least it, and overflow past the last', () => {
    expect(latencyBucket(0)).toBe(0);
    expect(latencyBucket(0.25)).toBe(0);
    expect(latencyBucket(0.26)).toBe(1);
    const last = LATENCY_BUCKET_BOUNDS_MS.length - 1;
    expect(latencyBucket(LATENCY_BUCKET_BOUNDS_MS[last] as number)).toBe(last);
    expect(latencyBucket(10 ** 9)).toBe(last + 1);
  });

  it('reports percentiles as bucket bounds within 25 % of the exact value', () => {
    const counts = new Array<number>(LATENCY_BUCKET_BOUNDS_MS.length + 1).fill(0);
    const samples = Array.from({ length: 1000 }, (_, i) => 1 + i / 100); // 1.00 … 10.99 ms
    for (const ms of samples) counts[latencyBucket(ms)] = (counts[latencyBucket(ms)] as number) + 1;
    const result = latencyPercentiles(counts);
    expect(result.samples).toBe(1000);
    for (const [q, value] of [[0.5, result.p50], [0.95, result.p95], [0.99, result.p99]] as const) {
      const exact = samples[Math.ceil(q * samples.length) - 1] as number;
      expect(value).toBeGreaterThanOrEqual(exact);
      expect(value).toBeLessThanOrEqual(exact * 1.25 + 0.001);
    }
  });

  it('has no percentiles without samples', () => {
    expect(latencyPercentiles([0, 0, 0])).toEqual({ samples: 0, p50: null, p95: null, p99: null });
  });
});

describe('fleetStatus after a stop', () => {
  it('is idle once the agent ended its turn, working again with its next hook, and working while a hook is in flight', () => {
    const now = Date.parse('2026-01-01T10:00:10.000Z');
    const base = { connected: true, connected_at_ms: now - 60_000, last_hook_at_ms: now - 1_000 };
    expect(fleetStatus({ ...base, hooks_in_flight: 0, last_hook_trigger: 'stop' }, now)).toBe('idle');
    expect(fleetStatus({ ...base, hooks_in_flight: 0, last_hook_trigger: 'pre-tool-use' }, now)).toBe('working');
    expect(fleetStatus({ ...base, hooks_in_flight: 1, last_hook_trigger: 'stop' }, now)).toBe('working');
  });
});
