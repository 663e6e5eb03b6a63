/**
 * What a hook carrying large tool text costs (docs/hooks.md, "Large tool text"): the tool's text
 * travels whole in the hook job, up to 256 KiB a string (hook-context-limits.ts of
 * @ahp/protocol). A standalone script, not a phase — `node tools/bench/dist/micro/large-tool-text-cost.js`
 * after building @ahp/bench. Figures move with the machine's load.
 *
 * 1. The rules: .ahp/hooks.yaml plus rules with the classic catastrophic shapes for backtracking
 *    engines (`(a|a)*b`, `(a+)+b`, `(x+x+)+y`), an ordinary one and one without a literal to look for, all reading `tool.input.content`
 *    and `tool.output`, compiled once and evaluated in-process on a pre-tool-use Write and a
 *    post-tool-use output of 4, 64 and 256 KiB (text that almost matches, the worst case): median
 *    ms per evaluation, and per 64 KiB (flat when the cost is linear).
 * 2. The queue, on a private ephemeral Redis: `MEMORY USAGE` of one job's hash, `used_memory` per
 *    queued job, bytes into and out of Redis and commands per hook from enqueue to a worker taking
 *    and completing the job (`INFO stats`, `INFO commandstats`), and Redis CPU per `evalsha`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { provideRedis } from '@ahp/embedded-redis';
import { compileHooksConfig, createMemoryRuleCounters, parseHooksConfig } from '@ahp/oracles';
import type { HookJobData, HookTrigger, JsonObject } from '@ahp/protocol';
import { connectRedis, createHookQueue, createHookWorker, createKeys, type RedisClient } from '@ahp/store';
import { HOOKS_CONFIG_PATH } from '../shared/rule-config.js';

const KIB = 1024;
const SIZES = [4 * KIB, 64 * KIB, 256 * KIB];
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** Rules a backtracking engine would take exponential time on, over text that almost matches. */
const HOSTILE_RULES = `
  pre-tool-use:
    oracles:
      - name: content-guard
        use: rules
        rules:
          - { id: alt-star, condition: 'default(tool.input.content, "") matches /(a|a)*b/', intensity: block, message: "alt-star" }
          - { id: plus-plus, condition: 'default(tool.input.content, "") matches /(a+)+b/', intensity: block, message: "plus-plus" }
          - { id: xx-y, condition: 'default(tool.input.content, "") matches /(x+x+)+y/', intensity: block, message: "xx-y" }
          - { id: key, condition: 'default(tool.input.content, "") matches /BEGIN [A-Z ]*PRIVATE KEY/', intensity: block, message: "key" }
          - { id: no-literal, condition: 'default(tool.input.content, "") matches /[ax]{3}[^ax]/', intensity: block, message: "no-literal" }
  post-tool-use:
    oracles:
      - name: output-guard
        use: rules
        rules:
          - { id: alt-star, condition: 'default(tool.output, "") matches /(a|a)*b/', intensity: aid, message: "alt-star", suggestions: [{ type: follow_up, description: "x" }] }
          - { id: plus-plus, condition: 'default(tool.output, "") matches /(a+)+b/', intensity: aid, message: "plus-plus", suggestions: [{ type: follow_up, description: "x" }] }
          - { id: xx-y, condition: 'default(tool.output, "") matches /(x+x+)+y/', intensity: aid, message: "xx-y", suggestions: [{ type: follow_up, description: "x" }] }
          - { id: key, condition: 'default(tool.output, "") matches /BEGIN [A-Z ]*PRIVATE KEY/', intensity: aid, message: "key", suggestions: [{ type: follow_up, description: "x" }] }
          - { id: no-literal, condition: 'default(tool.output, "") matches /[ax]{3}[^ax]/', intensity: aid, message: "no-literal", suggestions: [{ type: follow_up, description: "x" }] }
`;

/** `chars` of text that almost matches every hostile pattern (no `b`, no `y`). */
const almost = (chars: number): string => 'aaaaxxxx'.repeat(Math.ceil(chars / 8)).slice(0, chars);

function contextOf(trigger: HookTrigger, chars: number): JsonObject {
  return trigger === 'pre-tool-use'
    ? { tool: { name: 'Write', input: { file_path: '/w/big.txt', content: almost(chars) } } }
    : { tool: { name: 'Bash', input: { command: 'cat big.log' }, ok: true, output: almost(chars) } };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function rules(): Promise<void> {
  const example = parseHooksConfig(await readFile(join(ROOT, HOOKS_CONFIG_PATH), 'utf8'));
  const hostile = parseHooksConfig(`version: 1\nhooks:${HOSTILE_RULES}`);
  if (!example.ok || !hostile.ok) throw new Error(`a configuration does not parse: ${[...(example.ok ? [] : example.issues), ...(hostile.ok ? [] : hostile.issues)][0]?.message ?? ''}`);
  // The example's oracles first, then the hostile ones, per trigger.
  const hooks = { ...example.config.hooks };
  for (const [trigger, settings] of Object.entries(hostile.config.hooks)) {
    const mine = hooks[trigger as HookTrigger];
    hooks[trigger as HookTrigger] = mine === undefined ? settings : { ...mine, oracles: [...mine.oracles, ...settings.oracles] };
  }
  const compiled = compileHooksConfig({ ...example.config, hooks }, { version: 1 });
  const counters = createMemoryRuleCounters();
  let id = 0;
  const newId = () => `00000000-0000-4000-8000-${(++id).toString(16).padStart(12, '0')}`;
  const now = () => new Date();
  process.stdout.write('rules: .ahp/hooks.yaml + 5 rules per trigger ((a|a)*b, (a+)+b, (x+x+)+y, a key, [ax]{3}[^ax}), text that almost matches\n');
  process.stdout.write('trigger         chars     median ms   ms per 64 KiB   signals\n');
  for (const trigger of ['pre-tool-use', 'post-tool-use'] as const) {
    for (const chars of SIZES) {
      const context = contextOf(trigger, chars);
      const input = { hookId: newId(), trigger, context, agent: { id: 'bench', name: 'bench' }, sessionId: 'bench' };
      const times: number[] = [];
      let signals = 0;
      for (let run = 0; run < 25; run += 1) {
        const started = process.hrtime.bigint();
        const decision = await compiled.evaluate({ ...input, hookId: newId() }, { now, newId, counters, budgetMs: 10_000 });
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
        signals = decision.signals.length;
      }
      const ms = median(times.slice(5));
      process.stdout.write(`${trigger.padEnd(16)}${String(chars).padEnd(10)}${ms.toFixed(2).padStart(9)}   ${((ms / chars) * 64 * KIB).toFixed(2).padStart(13)}   ${signals}\n`);
    }
  }
}

async function info(redis: RedisClient, section: string): Promise<Map<string, string>> {
  const fields = new Map<string, string>();
  for (const line of String(await redis.info(section)).split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0) fields.set(line.slice(0, at), line.slice(at + 1));
  }
  return fields;
}

/** Every command's calls and Redis CPU (usec), but the measuring's own. */
async function commandStats(redis: RedisClient): Promise<{ calls: number; usec: number }> {
  let calls = 0;
  let usec = 0;
  for (const [name, value] of await info(redis, 'commandstats')) {
    if (!name.startsWith('cmdstat_') || /^cmdstat_(info|config|memory)/.test(name)) continue;
    calls += Number(/calls=(\d+)/.exec(value)?.[1] ?? 0);
    usec += Number(/usec=(\d+)/.exec(value)?.[1] ?? 0);
  }
  return { calls, usec };
}

async function queue(): Promise<void> {
  const handle = await provideRedis({ mode: 'ephemeral' });
  const redis = await connectRedis({ url: handle.url, name: 'large-tool-text-cost', logger: silent });
  const JOBS = 40;
  process.stdout.write(`\nqueue: ${JOBS} post-tool-use hooks per size, enqueued, then taken and completed by a hook worker (no-op evaluation)\n`);
  process.stdout.write('chars     job hash B   used_memory B/job   in B/hook   out B/hook   commands/hook   Redis usec/hook   claim-check SET+GET+DEL usec\n');
  try {
    for (const chars of SIZES) {
      const keys = createKeys({ prefix: `bench-ltt-${chars}` });
      const hookQueue = createHookQueue({ redis, keys, redactionKey: 'bench-redaction-key-of-thirty-two-chars' });
      const jobs: HookJobData[] = Array.from({ length: JOBS }, (_, i) => ({
        hook_id: `0b5f0d0e-8c1a-4c59-9d57-${String(chars).padStart(6, '0')}${String(i).padStart(6, '0')}`,
        trigger: 'post-tool-use',
        agent: { id: 'bench', name: 'bench' },
        session_id: 'bench',
        context: contextOf('post-tool-use', chars),
        enqueued_at: Date.now(),
        deadline_at: Date.now() + 60_000,
      }));
      const [first, sample] = jobs;
      if (first === undefined || sample === undefined) throw new Error('no jobs');
      await hookQueue.enqueue(first); // the redaction key and the scripts are loaded once, outside the count
      await redis.configResetStat();
      const memoryBefore = Number((await info(redis, 'memory')).get('used_memory'));
      const netBefore = await info(redis, 'stats');
      for (const job of jobs.slice(1)) await hookQueue.enqueue(job);
      const memoryAfter = Number((await info(redis, 'memory')).get('used_memory'));
      const hashBytes = Number(await redis.memoryUsage(hookQueue.queue.toKey(sample.hook_id), { SAMPLES: 0 }));
      let done = 0;
      let allDone: () => void = () => undefined;
      const finished = new Promise<void>((resolve) => {
        allDone = resolve;
      });
      const worker = createHookWorker({
        redis,
        keys,
        logger: silent,
        concurrency: 8,
        processor: async () => {
          done += 1;
          if (done === JOBS) allDone();
        },
      });
      await finished;
      await worker.close();
      const netAfter = await info(redis, 'stats');
      const stats = await commandStats(redis);
      const perHook = (field: string) => (Number(netAfter.get(field)) - Number(netBefore.get(field))) / (JOBS - 1);
      // What a claim-check would add per hook: the context stored once under its own key, read once, dropped.
      const text = JSON.stringify(sample.context);
      await redis.configResetStat();
      for (let i = 0; i < JOBS; i += 1) {
        const key = `bench-ltt-claim-${chars}-${i}`;
        await redis.set(key, text, { expiration: { type: 'PX', value: 60_000 } });
        await redis.get(key);
        await redis.del(key);
      }
      const claim = await commandStats(redis);
      process.stdout.write(
        `${String(chars).padEnd(10)}${String(hashBytes).padStart(10)}   ${((memoryAfter - memoryBefore) / (JOBS - 1)).toFixed(0).padStart(17)}   ${perHook('total_net_input_bytes').toFixed(0).padStart(9)}   ${perHook('total_net_output_bytes').toFixed(0).padStart(10)}   ${(stats.calls / JOBS).toFixed(1).padStart(13)}   ${(stats.usec / JOBS).toFixed(0).padStart(15)}   ${(claim.usec / JOBS).toFixed(0).padStart(28)}\n`,
      );
      await hookQueue.close();
    }
  } finally {
    await redis.quit();
    await handle.stop();
  }
}

await rules();
await queue();
