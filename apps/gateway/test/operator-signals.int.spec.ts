/**
 * The signal log through the operator API on a real gateway: decisions with signals stored the
 * way a worker stores them, one signal answered, then the listing, the JSONL export and the
 * statistics with their filters.
 */
import { randomUUID } from 'node:crypto';
import {
  OperatorErrorBodySchema,
  SignalLogLineSchema,
  SignalLogListResponseSchema,
  SignalLogStatsSchema,
  type HookTrigger,
  type Signal,
} from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptSignal, workerDecision } from './support/decisions.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestGateway, type TestOperatorEntry, type TestStore } from './support/test-gateway.js';

const OPERATORS: TestOperatorEntry[] = [{ id: 'op-viv', name: 'Viv', role: 'viewer', token: newToken() }];

let gw: TestGateway;
let store: TestStore;
/** The signal alice answered, and the one she did not. */
let answered: string;
let unanswered: string;

/** Opens a hook for `agentId` and stores a worker's decision carrying `signals`, as the pipeline would. */
async function decideWithSignals(agentId: string, trigger: HookTrigger, signals: (hookId: string) => Signal[]): Promise<Signal[]> {
  const hookId = randomUUID();
  const now = Date.now();
  await store.stores.hooks.open({ hookId, agentId, sessionId: `${agentId}-session`, gatewayId: gw.gateway.gatewayId, trigger, now, deadlineAt: now + 60_000 });
  const made = signals(hookId);
  await store.stores.hooks.decide(hookId, workerDecision(hookId, trigger, made), Date.now());
  return made;
}

beforeAll(async () => {
  gw = await startTestGateway({ name: 'operator-signals', operators: OPERATORS });
  store = await openTestStore(gw.keyPrefix, testLogger());
  const alice = await decideWithSignals('alice', 'pre-tool-use', (hookId) => [promptSignal(hookId)]);
  const other = promptSignal(randomUUID());
  const bob = await decideWithSignals('bob', 'post-tool-use', (hookId) => [{ ...other, header: { ...other.header, correlation_id: hookId, source: 'other-oracle' } }]);
  answered = alice[0]!.header.id;
  unanswered = bob[0]!.header.id;
  const outcome = await store.stores.signals.respond('alice', { signal_id: answered, consumed_at: new Date().toISOString(), action: 'acknowledge' }, Date.now());
  expect(outcome.outcome).toBe('recorded');
});

afterAll(async () => {
  await store?.close();
  await gw?.stop();
});

async function get(path: string): Promise<Response> {
  return fetch(`${gw.httpUrl}${path}`, { headers: { authorization: `Bearer ${gw.operators['op-viv']!.token}` } });
}

async function list(query: string) {
  const response = await get(`/v1/operator/signals${query}`);
  expect(response.status).toBe(200);
  return SignalLogListResponseSchema.parse(await response.json());
}

describe('operator API: signal log', () => {
  it('lists every signal joined with its response', async () => {
    const { lines, truncated } = await list('');
    expect(truncated).toBe(false);
    expect(lines.map((line) => [line.signal_id, line.agent_id, line.consumed, line.action])).toEqual([
      [answered, 'alice', true, 'acknowledge'],
      [unanswered, 'bob', false, undefined],
    ]);
  });

  it('filters by agent, hook, oracle, intensity and time, and honours limit', async () => {
    expect((await list('?agent=bob')).lines.map((line) => line.signal_id)).toEqual([unanswered]);
    expect((await list('?hook=pre-tool-use')).lines.map((line) => line.signal_id)).toEqual([answered]);
    expect((await list('?source=other-oracle')).lines.map((line) => line.signal_id)).toEqual([unanswered]);
    expect((await list('?intensity=block')).lines).toEqual([]);
    expect((await list(`?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).lines).toEqual([]);
    const limited = await list('?limit=1');
    expect(limited).toMatchObject({ truncated: true, lines: [{ signal_id: answered }] });
  });

  it('refuses an unknown or out-of-range parameter with 400', async () => {
    for (const query of ['?agents=bob', '?limit=0', '?intensity=loud']) {
      const response = await get(`/v1/operator/signals${query}`);
      expect(response.status, query).toBe(400);
      expect(OperatorErrorBodySchema.parse(await response.json()).error.code).toBe('E_INVALID_FRAME');
    }
  });

  it('exports the same lines as a JSONL download', async () => {
    const response = await get('/v1/operator/signals/export?agent=alice');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(response.headers.get('content-disposition')).toContain('attachment');
    const text = await response.text();
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.trimEnd().split('\n').map((line) => SignalLogLineSchema.parse(JSON.parse(line)));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ signal_id: answered, action: 'acknowledge' });
  });

  it('counts per hook, oracle, intensity and action', async () => {
    const response = await get('/v1/operator/signals/stats');
    expect(response.status).toBe(200);
    const stats = SignalLogStatsSchema.parse(await response.json());
    expect(stats.total).toMatchObject({ signals: 2, consumed: 1, unanswered: 1 });
    expect(stats.by_hook['pre-tool-use']).toMatchObject({ signals: 1, consumed: 1 });
    expect(stats.by_hook['post-tool-use']).toMatchObject({ signals: 1, unanswered: 1 });
    expect(Object.keys(stats.by_source).sort()).toEqual(['int-spec-oracle', 'other-oracle']);
    expect(stats.by_intensity['prompt']?.signals).toBe(2);
    expect(stats.by_action['acknowledge']).toMatchObject({ intensity: 'prompt', count: 1, share: 1 });

    const filtered = SignalLogStatsSchema.parse(await (await get('/v1/operator/signals/stats?agent=bob')).json());
    expect(filtered.total).toMatchObject({ signals: 1, consumed: 0 });
    expect(filtered.filter).toEqual({ agent_id: 'bob' });
  });
});
