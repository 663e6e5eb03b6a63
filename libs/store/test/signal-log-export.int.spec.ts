/**
 * Exporting the signal log against the run's Redis: signals joined with their responses, the new
 * fields (rule, config version, latency), filters, the limit, corrupt entries and statistics.
 */
import { SignalLogLineSchema, type SignalLogFilter, type HookTrigger, type Intensity, type Signal, type SignalResponse } from '@ahp/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  StoreInputError,
  createRedisStores,
  exportSignalLog,
  readSignalLog,
  readSignalLogStats,
  toJsonl,
  type RedisClient,
  type RedisStores,
  type StoreKeys,
} from '../src/index.js';
import { makeDecision, makeSignal, openClient, randomUUID, testKeys } from './support.js';

let redis: RedisClient;
let keys: StoreKeys;
let stores: RedisStores;

beforeAll(async () => {
  redis = await openClient('store-test:signal-export');
});
afterAll(async () => {
  await redis.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  stores = createRedisStores({ redis, keys });
});

const T0 = Date.parse('2026-02-09T10:00:00.000Z');

interface Sent {
  signal: Signal;
  hookId: string;
}

/** Opens a hook at `openedAt`, decides it `latency` ms later with one signal, under `version`. */
async function send(options: {
  agent?: string;
  trigger?: HookTrigger;
  intensity: Intensity;
  source: string;
  rule?: string;
  version?: number;
  openedAt: number;
  latency?: number;
}): Promise<Sent> {
  const hookId = randomUUID();
  const agent = options.agent ?? 'agent-1';
  const trigger = options.trigger ?? 'pre-issue-submit';
  await stores.hooks.open({ hookId, agentId: agent, sessionId: `session-${agent}`, gatewayId: 'gw-a', trigger, now: options.openedAt, deadlineAt: options.openedAt + 10_000 });
  const base = makeSignal(options.intensity, options.source);
  const decidedAt = options.openedAt + (options.latency ?? 12);
  const signal: Signal = {
    ...base,
    header: { ...base.header, type: 'quality-gate', timestamp: new Date(decidedAt).toISOString(), correlation_id: hookId },
    context: { oracle: options.source, trigger, ...(options.rule ? { rule: options.rule } : {}), ...(options.version ? { config_version: options.version } : {}) },
  };
  const decision = { ...makeDecision(hookId, [signal], trigger), ...(options.version ? { config_version: options.version } : {}) };
  await stores.hooks.decide(hookId, decision, decidedAt);
  return { signal, hookId };
}

async function answer(sent: Sent, action: SignalResponse['action'], at: number, agent = 'agent-1'): Promise<void> {
  const outcome = await stores.signals.respond(agent, { signal_id: sent.signal.header.id, consumed_at: new Date(at).toISOString(), action }, at);
  expect(outcome.outcome).toBe('recorded');
}

/** The three lines of the worked example's log (docs/spec/signal-log.md#signal-log-lines). */
async function seedExample(): Promise<Sent[]> {
  const block = await send({ intensity: 'block', source: 'checklist-validator', rule: 'checklist-incomplete', version: 3, openedAt: T0 - 40, latency: 40 });
  await answer(block, 'retry_after_fix', T0 + 60_000);
  const prompt = await send({ intensity: 'prompt', source: 'change-size-limiter', rule: 'large-change', version: 3, openedAt: T0 + 900_000 - 25, latency: 25 });
  await answer(prompt, 'acknowledge', T0 + 900_500);
  const aid = await send({ trigger: 'post-issue-submit', intensity: 'aid', source: 'notification', version: 3, openedAt: T0 + 901_000 - 5, latency: 5 });
  await answer(aid, 'suggestion_applied', T0 + 902_000);
  return [block, prompt, aid];
}

describe('exportSignalLog', () => {
  it('writes one line per signal joined with its response, the six fields of docs/spec/signal-log.md#signal-log-lines first', async () => {
    const [block, prompt, aid] = await seedExample();
    const { lines, scanned, skipped, truncated } = await exportSignalLog(redis, keys);
    expect({ scanned, skipped, truncated }).toEqual({ scanned: 6, skipped: 0, truncated: false });
    expect(lines).toHaveLength(3);
    expect(lines[0]).toEqual({
      timestamp: '2026-02-09T10:00:00.000Z',
      hook: 'pre-issue-submit',
      intensity: 'block',
      source: 'checklist-validator',
      consumed: true,
      action: 'retry_after_fix',
      signal_id: block!.signal.header.id,
      type: 'quality-gate',
      rule: 'checklist-incomplete',
      config_version: 3,
      agent_id: 'agent-1',
      session_id: 'session-agent-1',
      correlation_id: block!.hookId,
      latency_ms: 40,
      responded_at: '2026-02-09T10:01:00.000Z',
      // What it acted on: this hook had no evaluation (so no tool), only the block's reason.
      subject: { m: 'writes outside the workspace' },
    });
    expect(Object.keys(lines[0]!).slice(0, 6)).toEqual(['timestamp', 'hook', 'intensity', 'source', 'consumed', 'action']);
    expect(lines.map((l) => [l.timestamp, l.hook, l.intensity, l.source, l.action])).toEqual([
      ['2026-02-09T10:00:00.000Z', 'pre-issue-submit', 'block', 'checklist-validator', 'retry_after_fix'],
      ['2026-02-09T10:15:00.000Z', 'pre-issue-submit', 'prompt', 'change-size-limiter', 'acknowledge'],
      ['2026-02-09T10:15:01.000Z', 'post-issue-submit', 'aid', 'notification', 'suggestion_applied'],
    ]);
    expect(lines[1]!.signal_id).toBe(prompt!.signal.header.id);
    expect(lines[2]!.correlation_id).toBe(aid!.hookId);
    for (const line of lines) expect(SignalLogLineSchema.safeParse(line).success).toBe(true);

    const jsonl = toJsonl(lines);
    expect(jsonl.endsWith('\n')).toBe(true);
    expect(jsonl.trimEnd().split('\n').map((text) => JSON.parse(text) as unknown)).toEqual(lines);
  });

  it('exports an unanswered signal as not consumed, without action, and without a version for built-in defaults', async () => {
    await send({ intensity: 'control', source: 'permission-check', openedAt: T0 });
    const { lines } = await exportSignalLog(redis, keys);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ consumed: false, intensity: 'control', source: 'permission-check' });
    expect(lines[0]).not.toHaveProperty('action');
    expect(lines[0]).not.toHaveProperty('config_version');
    expect(lines[0]).not.toHaveProperty('rule');
    expect(SignalLogLineSchema.safeParse(lines[0]).success).toBe(true);
  });

  it('filters by time, agent, hook, intensity and oracle', async () => {
    await seedExample();
    await send({ agent: 'agent-2', intensity: 'block', source: 'test-gate', openedAt: T0 + 1_000 });
    // The example's clock is in 2026, Redis's stream ids are today: read the whole log for the time filter.
    const ids = async (filter: SignalLogFilter) =>
      (await exportSignalLog(redis, keys, { filter, clockSkewMs: Number.POSITIVE_INFINITY })).lines.map((l) => `${l.agent_id}/${l.intensity}`);
    expect(await ids({ agent_id: 'agent-2' })).toEqual(['agent-2/block']);
    expect(await ids({ intensity: 'block' })).toEqual(['agent-1/block', 'agent-2/block']);
    expect(await ids({ hook: 'post-issue-submit' })).toEqual(['agent-1/aid']);
    expect(await ids({ source: 'change-size-limiter' })).toEqual(['agent-1/prompt']);
    expect(await ids({ since: '2026-02-09T10:00:00.500Z', until: '2026-02-09T10:15:00.000Z' })).toEqual(['agent-2/block']);
    expect(await ids({ since: '2026-02-09T10:15:00.000Z' })).toEqual(['agent-1/prompt', 'agent-1/aid']);
    // The time filter still finds the response of a signal inside the range, logged after `until`.
    const inRange = await exportSignalLog(redis, keys, { filter: { until: '2026-02-09T10:00:00.001Z' }, clockSkewMs: Number.POSITIVE_INFINITY });
    expect(inRange.lines.map((l) => l.action)).toEqual(['retry_after_fix']);
    await expect(exportSignalLog(redis, keys, { filter: { intensity: 'loud' as Intensity } })).rejects.toThrow(StoreInputError);
  });

  it('filters on the signals timestamps when they differ from the Redis clock by less than the skew', async () => {
    const now = Date.now();
    const early = await send({ intensity: 'block', source: 'early', openedAt: now - 1_000 });
    const late = await send({ intensity: 'block', source: 'late', openedAt: now });
    await answer(early, 'abort', now + 10);
    const since = new Date(now - 1).toISOString();
    const found = await exportSignalLog(redis, keys, { filter: { since }, clockSkewMs: 5_000 });
    expect(found.lines.map((l) => l.source)).toEqual(['late']);
    const until = await exportSignalLog(redis, keys, { filter: { until: since }, clockSkewMs: 5_000 });
    expect(until.lines.map((l) => [l.source, l.action])).toEqual([['early', 'abort']]);
    expect(late.signal.header.source).toBe('late');
  });

  it('stops at the limit, pages through long logs, and skips entries that do not parse', async () => {
    for (let i = 0; i < 7; i += 1) await send({ intensity: 'aid', trigger: 'post-tool-use', source: `o-${i}`, openedAt: T0 + i });
    await redis.xAdd(keys.signalLog, '*', { kind: 'gossip', timestamp: 'x' });
    const limited = await exportSignalLog(redis, keys, { limit: 3, pageSize: 2 });
    expect(limited.lines.map((l) => l.source)).toEqual(['o-0', 'o-1', 'o-2']);
    expect(limited.truncated).toBe(true);
    const pages: { scanned: number; lastId: string }[] = [];
    const all = await exportSignalLog(redis, keys, { pageSize: 2, onPage: (progress) => pages.push(progress) });
    expect(all.lines).toHaveLength(7);
    expect(all.skipped).toBe(1);
    // Progress after every page: entries read so far, and the last entry's id.
    expect(pages.map((page) => page.scanned)).toEqual([2, 4, 6, 8]);
    expect(pages.at(-1)?.lastId).toBe((await redis.xRevRange(keys.signalLog, '+', '-', { COUNT: 1 }))?.[0]?.id);
  });

  it('writes latency and rule into the raw log entries too', async () => {
    await send({ intensity: 'block', source: 'checklist-validator', rule: 'r-1', version: 9, openedAt: T0, latency: 77 });
    const [entry] = await readSignalLog(redis, keys);
    expect(entry).toMatchObject({ kind: 'signal', rule: 'r-1', configVersion: 9, latencyMs: 77 });
  });
});

describe('readSignalLogStats', () => {
  it('counts per hook, oracle, intensity, action, rule and version: how blocks end', async () => {
    await seedExample();
    const blocks = await Promise.all(Array.from({ length: 4 }, (_, i) => send({ intensity: 'block', source: 'checklist-validator', rule: 'checklist-incomplete', version: 4, openedAt: T0 + 2_000 + i, latency: 10 * (i + 1) })));
    await answer(blocks[0]!, 'retry_after_fix', T0 + 3_000);
    await answer(blocks[1]!, 'retry_after_fix', T0 + 3_000);
    await answer(blocks[2]!, 'abort', T0 + 3_000);
    const stats = await readSignalLogStats(redis, keys);
    expect(stats.total).toEqual({
      signals: 7,
      consumed: 6,
      unanswered: 1,
      intensities: { block: 5, prompt: 1, aid: 1 },
      actions: { retry_after_fix: 3, abort: 1, acknowledge: 1, suggestion_applied: 1 },
    });
    expect(stats.by_action['retry_after_fix']).toEqual({ intensity: 'block', count: 3, share: 0.75 });
    expect(stats.by_action['abort']).toEqual({ intensity: 'block', count: 1, share: 0.25 });
    expect(stats.by_source['checklist-validator']).toMatchObject({ signals: 5, consumed: 4 });
    expect(stats.by_hook['post-issue-submit']).toMatchObject({ signals: 1, actions: { suggestion_applied: 1 } });
    expect(stats.by_intensity['block']).toMatchObject({ signals: 5, unanswered: 1 });
    expect(stats.by_rule['checklist-incomplete']).toMatchObject({ signals: 5 });
    expect(Object.keys(stats.by_config_version).sort()).toEqual(['3', '4']);
    expect(stats.latency_ms).toMatchObject({ count: 7, max: 40 });
    expect(stats.first_at).toBe('2026-02-09T10:00:00.000Z');

    const filtered = await readSignalLogStats(redis, keys, { filter: { hook: 'post-issue-submit' } });
    expect(filtered.total.signals).toBe(1);
    expect(filtered.filter).toEqual({ hook: 'post-issue-submit' });
  });
});
