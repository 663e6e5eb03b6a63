import { describe, expect, it } from 'vitest';
import { LIVE_EVENT_KINDS, parseLiveEvent } from './live-events';

const agentRow = {
  agent: { id: 'alice', name: 'Alice', team: 'red', role: 'teammate' },
  status: 'working',
  gateway_id: 'gw-1',
  session_id: 'sess-9',
  connected_at: '2026-11-22T10:00:00.000Z',
  last_seen_at: '2026-11-22T10:00:05.000Z',
  last_hook: { hook_id: '0b5f0d0e-8c1a-4c59-9d57-2f3b1b1f3c11', trigger: 'pre-tool-use', tool: 'bash', at: '2026-11-22T10:00:05.000Z' },
  hooks_in_flight: 1,
};

describe('parseLiveEvent', () => {
  it('parses each kind the gateway sends', () => {
    expect(parseLiveEvent('ready', JSON.stringify({ kind: 'ready', gateway_id: 'gw-1', at: '2026-11-22T10:00:00.000Z' }))).toEqual({ kind: 'ready', gateway_id: 'gw-1', at: '2026-11-22T10:00:00.000Z' });
    expect(parseLiveEvent('agent', JSON.stringify({ kind: 'agent', agent: agentRow }))?.kind).toBe('agent');
    expect(
      parseLiveEvent(
        'request',
        JSON.stringify({ kind: 'request', request_id: 'req_1', type: 'plan_approval', event: 'approved', status: 'approved', actor: { kind: 'operator', id: 'op-maria' }, at: '2026-11-22T10:00:00.000Z' }),
      ),
    ).toMatchObject({ actor: { id: 'op-maria' } });
    expect(parseLiveEvent('signals', JSON.stringify({ kind: 'signals', agent_ids: ['alice', 'bob'], at: '2026-11-22T10:00:00.000Z' }))).toMatchObject({ agent_ids: ['alice', 'bob'] });
    expect(parseLiveEvent('config', JSON.stringify({ kind: 'config', version: 3, at: '2026-11-22T10:00:00.000Z' }))).toMatchObject({ version: 3 });
    expect(parseLiveEvent('heartbeat', JSON.stringify({ kind: 'heartbeat', gateway_id: 'gw-1', at: '2026-11-22T10:00:02.000Z', interval_ms: 2000 }))).toMatchObject({ interval_ms: 2000 });
    expect(LIVE_EVENT_KINDS).toEqual(['ready', 'heartbeat', 'agent', 'request', 'signals', 'timeline', 'config']);
  });

  it('drops data that is not JSON, does not fit the schema, or contradicts the SSE event name', () => {
    expect(parseLiveEvent('ready', 'not json')).toBeNull();
    expect(parseLiveEvent('ready', JSON.stringify({ kind: 'ready' }))).toBeNull();
    expect(parseLiveEvent('agent', JSON.stringify({ kind: 'agent', agent: { ...agentRow, status: 'asleep' } }))).toBeNull();
    expect(parseLiveEvent('config', JSON.stringify({ kind: 'ready', gateway_id: 'gw-1', at: '2026-11-22T10:00:00.000Z' }))).toBeNull();
    expect(parseLiveEvent('ready', JSON.stringify({ kind: 'ready', gateway_id: 'gw-1', at: '2026-11-22T10:00:00.000Z', extra: true }))).toBeNull();
  });
});
