/**
 * TimelineStore against the run's Redis: order, bounds, retention, and what a corrupt entry does.
 */
import type { AgentEvent } from '@ahp/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StoreInputError, createTimelineStore, timelineKey, type RedisClient, type StoreKeys, type TimelineStore } from '../src/index.js';
import { openClient, recordingLogger, testKeys } from './support.js';

let redis: RedisClient;
let keys: StoreKeys;
let timeline: TimelineStore;

const stepDone = (step: string): AgentEvent => ({ kind: 'control_signal', control_signal: { step_id: step, control: 'step_done', format: 'structured' } });

beforeAll(async () => {
  redis = await openClient('store-test:timeline');
});
afterAll(async () => {
  await redis.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  timeline = createTimelineStore({ redis, keys, maxLen: 50, ttlMs: 60_000 });
});

describe('TimelineStore', () => {
  it('appends events per agent and reads them newest first', async () => {
    const now = Date.parse('2026-02-09T10:00:00Z');
    const first = await timeline.append({ agentId: 'alice', sessionId: 'sess-1', event: stepDone('s1'), now });
    await timeline.append({ agentId: 'bob', event: stepDone('b1'), now });
    const verification: AgentEvent = { kind: 'verification', step_id: 's1', result: { ok: true, type: 'passed', summary: '42 passed', details: [] } };
    await timeline.append({ agentId: 'alice', sessionId: 'sess-1', event: verification, now: now + 1000 });

    expect(first).toEqual({ id: expect.any(String), agent_id: 'alice', session_id: 'sess-1', recorded_at: '2026-02-09T10:00:00.000Z', event: stepDone('s1') });
    const alice = await timeline.read('alice', 10);
    expect(alice.map((entry) => entry.event.kind)).toEqual(['verification', 'control_signal']);
    expect(alice[0]).toMatchObject({ agent_id: 'alice', session_id: 'sess-1', recorded_at: '2026-02-09T10:00:01.000Z', event: verification });
    expect(alice[1]?.id).toBe(first.id);
    expect((await timeline.read('bob', 10)).map((entry) => entry.session_id)).toEqual([undefined]);
    expect(await timeline.read('nobody', 10)).toEqual([]);
  });

  it("keeps a team activity's attribution, the gateway's, beside the agent's event", async () => {
    const event: AgentEvent = { kind: 'team_activity', activity: 'task_completed', teammate_name: 'alice (lead)', task: { id: 't1', subject: 'deploy' } };
    const attribution = { sender: { id: 'mallory', name: 'Mallory', team: 'web' }, names: 'claimed' as const };
    const appended = await timeline.append({ agentId: 'mallory', event, attribution, now: Date.now() });
    expect(appended.attribution).toEqual(attribution);
    expect((await timeline.read('mallory', 1))[0]).toMatchObject({ event, attribution });
    await expect(timeline.append({ agentId: 'mallory', event, attribution: { ...attribution, names: 'trusted' } as never, now: Date.now() })).rejects.toBeInstanceOf(StoreInputError);
  });

  it('returns at most `limit` events, keeps roughly maxLen, and expires after the ttl', async () => {
    for (let i = 0; i < 120; i++) await timeline.append({ agentId: 'alice', event: stepDone(`s${i}`), now: Date.now() });
    expect((await timeline.read('alice', 3)).map((entry) => (entry.event.kind === 'control_signal' ? entry.event.control_signal.step_id : ''))).toEqual([
      's119',
      's118',
      's117',
    ]);
    const kept = await redis.xLen(timelineKey(keys, 'alice'));
    expect(kept).toBeGreaterThanOrEqual(50);
    expect(kept).toBeLessThan(120);
    const ttl = await redis.pTTL(timelineKey(keys, 'alice'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('refuses agent ids that cannot be part of a key and events that do not parse', async () => {
    await expect(timeline.append({ agentId: 'a{b}', event: stepDone('s1'), now: Date.now() })).rejects.toBeInstanceOf(StoreInputError);
    const bogus = { kind: 'control_signal', control_signal: { control: 'explode', format: 'structured' } } as unknown as AgentEvent;
    await expect(timeline.append({ agentId: 'alice', event: bogus, now: Date.now() })).rejects.toBeInstanceOf(StoreInputError);
  });

  it('skips a stored entry that does not parse, reports its key and entry id, and reads older events in its place', async () => {
    const logger = recordingLogger();
    const logged = createTimelineStore({ redis, keys, maxLen: 50, ttlMs: 60_000, logger });
    const now = Date.parse('2026-02-09T10:00:00Z');
    await logged.append({ agentId: 'alice', event: stepDone('s1'), now });
    await logged.append({ agentId: 'alice', event: stepDone('s2'), now });
    const key = timelineKey(keys, 'alice');
    // Entries from before the size checks: too long, not JSON, not an event.
    const long = await redis.xAdd(key, '*', { recorded_at: new Date(now).toISOString(), event: JSON.stringify({ kind: 'control_signal', control_signal: { step_id: 'x'.repeat(100_000), control: 'step_done', format: 'structured' } }) });
    const broken = await redis.xAdd(key, '*', { recorded_at: 'yesterday', event: '{secret-text' });
    await logged.append({ agentId: 'alice', event: stepDone('s3'), now });

    const read = await logged.read('alice', 3);
    expect(read.map((entry) => entry.event.kind === 'control_signal' && entry.event.control_signal.step_id)).toEqual(['s3', 's2', 's1']);
    const errors = logger.lines.filter((line) => line.level === 'error');
    expect(errors.map((line) => line.fields['entry'])).toEqual([broken, long]);
    expect(errors.every((line) => line.fields['key'] === key && line.fields['during'] === 'timeline read' && line.fields['outcome'] === 'left')).toBe(true);
    expect(JSON.stringify(logger.lines)).not.toContain('secret-text');
    expect(JSON.stringify(logger.lines)).not.toContain('xxxxxxxx');
    expect((await logged.read('alice', 1)).map((entry) => entry.id)).toEqual([read[0]?.id]);
    expect(await logged.read('alice', 10)).toHaveLength(3);
  });
});
