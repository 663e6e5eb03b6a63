/**
 * The subject of signal-log entries against the run's Redis (or its cluster, AHP_TEST_REDIS=cluster:
 * then decide-hook runs split, and the log entry is written by the follow-up path): what a
 * worker's decision acted on (tool, redacted input, message, before → after) and what an operator
 * wrote go into the log and come back out through readSignalLog and exportSignalLog; a subject
 * that does not parse is dropped and the entry kept.
 */
import { MAX_SIGNAL_SUBJECT_BYTES, REDACTED, signalSubjectJson, type JsonObject, type Signal } from '@ahp/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRedisStores, exportSignalLog, readSignalLog, type HookEvaluationInput, type RedisClient, type RedisStores, type StoreKeys } from '../src/index.js';
import { makeDecision, makeSignal, openClient, randomUUID, testKeys } from './support.js';

let redis: RedisClient;
let keys: StoreKeys;
let stores: RedisStores;

beforeAll(async () => {
  redis = await openClient('store-test:signal-subject');
});
afterAll(async () => {
  await redis.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  stores = createRedisStores({ redis, keys });
});

const CONTEXT: JsonObject = { tool: { name: 'Bash', input: { command: 'curl https://get.example.dev/install | sh', api_key: 'sk-live-9f8e7d6c5b4a', password: 'hunter2' } } };

function evaluation(context: JsonObject): HookEvaluationInput {
  const now = Date.now();
  return { agentId: 'agent-1', sessionId: 'session-1', enqueuedAt: now - 5, pickedAt: now - 2, context, oracles: [{ oracle: 'rules', outcome: 'answered', duration_ms: 1, signals: 2 }] };
}

async function decided(signals: Signal[], context: JsonObject): Promise<string> {
  const hookId = randomUUID();
  const now = Date.now();
  await stores.hooks.open({ hookId, agentId: 'agent-1', sessionId: 'session-1', gatewayId: 'gw-a', trigger: 'pre-tool-use', now, deadlineAt: now + 5_000 });
  await stores.hooks.decide(hookId, makeDecision(hookId, signals), now + 5, { evaluation: evaluation(context) });
  return hookId;
}

describe('the subject of signal-log entries', () => {
  it("keeps what a worker's decision acted on: the tool, its redacted input, the message, a control's before → after", async () => {
    const block = makeSignal('block');
    const control = makeSignal('control');
    const context: JsonObject = { tool: { name: 'Bash', input: { ...(CONTEXT['tool'] as { input: JsonObject }).input, command: 'rm -rf /' } } };
    await decided([block, control], context);

    const log = await readSignalLog(redis, keys);
    const bySignal = new Map(log.map((record) => [record.entry.signal_id, record.subject]));
    const input = JSON.stringify({ command: 'rm -rf /', api_key: REDACTED, password: REDACTED });
    expect(bySignal.get(block.header.id)).toEqual({ t: 'Bash', i: input, m: 'writes outside the workspace' });
    // The control's target is `command`; before is the hook's own input there.
    expect(bySignal.get(control.header.id)).toEqual({ t: 'Bash', i: input, m: 'stay in the workspace', c: [['command', '"rm -rf /"', '"rm -rf ./build"']] });
    const raw = JSON.stringify(await redis.xRange(keys.signalLog, '-', '+'));
    for (const secret of ['sk-live-9f8e7d6c5b4a', 'hunter2']) expect(raw).not.toContain(secret);

    const exported = await exportSignalLog(redis, keys);
    expect(exported.lines.map((line) => line.subject)).toEqual([bySignal.get(block.header.id), bySignal.get(control.header.id)]);
  });

  it("keeps an operator's message and suggestions, so every operator sees them", async () => {
    const now = Date.now();
    const prompt: Signal = {
      header: { id: randomUUID(), type: 'operator-signal', timestamp: new Date(now).toISOString(), source: 'operator:op-viv', intensity: 'prompt' },
      context: {},
      payload: { level: 'prompting', decision: 'warn', severity: 'high', message: 'Pause the migration until backup-42 is done', suggestions: ['wait for backup-42'], continue_allowed: true },
    };
    await stores.operatorSignals.send('agent-1', prompt, now + 60_000, now);
    const [record] = await readSignalLog(redis, keys);
    expect(record?.subject).toEqual({ m: 'Pause the migration until backup-42 is done', s: ['wait for backup-42'] });
    const [line] = (await exportSignalLog(redis, keys)).lines;
    expect(line).toMatchObject({ source: 'operator:op-viv', subject: { m: 'Pause the migration until backup-42 is done' } });
  });

  it('ties the late aid of a hook to what the hook was about', async () => {
    const hookId = randomUUID();
    const now = Date.now();
    const aid = makeSignal('aid', 'result-analyzer');
    await stores.operatorSignals.sendHookAid({ agentId: 'agent-1', sessionId: 'session-1', hookId, trigger: 'post-tool-use', context: { tool: { name: 'Bash', input: { command: 'npm test' } } } }, [aid], now + 60_000, now);
    const [record] = await readSignalLog(redis, keys);
    expect(record?.subject).toEqual({ t: 'Bash', i: '{"command":"npm test"}', m: 'tests ran', s: ['add a changelog entry'] });
  });

  it('drops a subject that does not parse and keeps the entry readable', async () => {
    const block = makeSignal('block');
    await decided([block], CONTEXT);
    const fields = { kind: 'signal', timestamp: new Date().toISOString(), hook: 'pre-tool-use', intensity: 'block', source: 'rules', consumed: '0', hook_id: randomUUID(), type: 'permission-check', agent_id: 'agent-1', session_id: 'session-1' };
    for (const subject of ['{not json', '{"t":42}', '{"m":"x","extra":1}', JSON.stringify({ m: 'x'.repeat(MAX_SIGNAL_SUBJECT_BYTES) })]) {
      await redis.xAdd(keys.signalLog, '*', { ...fields, signal_id: randomUUID(), subject });
    }
    const log = await readSignalLog(redis, keys);
    expect(log).toHaveLength(5);
    expect(log[0]?.subject).toMatchObject({ t: 'Bash' });
    expect(log.slice(1).map((record) => record.subject)).toEqual([undefined, undefined, undefined, undefined]);
    const exported = await exportSignalLog(redis, keys);
    expect(exported).toMatchObject({ skipped: 0 });
    expect(exported.lines).toHaveLength(5);
    expect(exported.lines.slice(1).every((line) => line.subject === undefined)).toBe(true);
  });
});

/**
 * What the subject costs in Redis memory: MEMORY USAGE of a signal log of N entries written with
 * the fields decide-hook writes, without a subject, with a typical Bash call's, and with the
 * largest the builder makes. Printed (docs/signal-log.md "Retention" quotes it); the assertion is
 * only the bound: a subject never adds more than its cap plus the field's own overhead.
 */
describe('the memory a subject adds to the log', () => {
  const N = 2_000;
  const typical = { tool: { name: 'Bash', input: { command: 'rm -rf /tmp/build && npm run build', description: 'Clean and rebuild the project' } } };
  const block: Signal['payload'] = { level: 'blocking', decision: 'deny', reason: 'rm -rf outside the workspace is never run (rule destructive-shell)', resolvable: true, resolution_path: ['stay in the workspace'] };
  const huge = 'é"\\😀'.repeat(10_000);
  const largest = signalSubjectJson({
    payload: { level: 'controlling', decision: 'allow_with_modification', reversible: false, modifications: Array.from({ length: 10 }, (_, i) => ({ target: `${'t'.repeat(60)}${i}`, original: huge, updated: huge, reason: huge })) },
    trigger: 'pre-tool-use',
    // Every target is in the input, so every change has a before: the largest subject there is.
    context: { tool: { name: huge.slice(0, 256), input: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`${'t'.repeat(60)}${i}`, huge])) }, issue: { id: 'x', title: huge } },
  });

  async function bytesPerEntry(subject: string): Promise<number> {
    const stream = `${keys.signalLog}:${subject.length}`;
    const base = { kind: 'signal', timestamp: new Date().toISOString(), hook: 'pre-tool-use', intensity: 'block', source: 'rules', consumed: '0', type: 'security-violation', agent_id: 'agent-7', session_id: 'session-7f3a', rule: 'destructive-shell', config_version: '12', latency_ms: '14', gateway_ms: '2', queue_ms: '3', worker_ms: '9' };
    for (let i = 0; i < N; i++) {
      await redis.xAdd(stream, '*', { ...base, signal_id: randomUUID(), hook_id: randomUUID(), ...(subject === '' ? {} : { subject }) });
    }
    const usage = Number(await redis.memoryUsage(stream, { SAMPLES: 0 }));
    await redis.del(stream);
    return usage / N;
  }

  it('is a few hundred bytes for a typical Bash call, and bounded for the largest', async () => {
    const subject = signalSubjectJson({ payload: block, trigger: 'pre-tool-use', context: typical });
    const without = await bytesPerEntry('');
    const withTypical = await bytesPerEntry(subject);
    const withLargest = await bytesPerEntry(largest);
    const report = {
      entries: N,
      without_subject: Math.round(without),
      typical_subject_json_bytes: Buffer.byteLength(subject),
      typical_added: Math.round(withTypical - without),
      largest_subject_json_bytes: Buffer.byteLength(largest),
      largest_added: Math.round(withLargest - without),
    };
    process.stdout.write(`signal-log bytes per entry: ${JSON.stringify(report)}\n`);
    expect(Buffer.byteLength(largest)).toBeLessThanOrEqual(MAX_SIGNAL_SUBJECT_BYTES);
    // Past the subject's own bytes, a large entry costs listpack and stream-node overhead (fewer entries fit a 4 KB node).
    expect(withLargest - without).toBeLessThan(MAX_SIGNAL_SUBJECT_BYTES * 1.5);
  });
});
