/**
 * The worker's replay job over a stand-in replay log: the candidate compiled with the worker's
 * plugins, the window and filters passed to the log, progress and cancel between pages.
 */
import type { Oracle } from '@ahp/oracles';
import { replayDecisionOf, aggregateSignals, type ConfigReplayJobData, type ReplayRecord } from '@ahp/protocol';
import { ConfigReplayCancelled, type Logger, type ReadReplayLogOptions, type ReplayLogItem } from '@ahp/store';
import { describe, expect, it } from 'vitest';
import { CandidateConfigError, createConfigReplayProcessor, createHookActivity } from './config-replay-job.js';

const T0 = Date.parse('2026-11-26T06:00:00.000Z');
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function record(n: number, command: string): ReplayRecord {
  const hookId = `00000000-0000-4000-a000-${String(n).padStart(12, '0')}`;
  return {
    hook_id: hookId,
    trigger: 'pre-tool-use',
    agent: { id: 'alice', name: 'Alice' },
    session_id: 's-1',
    at: T0 + n * 1000,
    decision: replayDecisionOf(aggregateSignals({ hookId, trigger: 'pre-tool-use', signals: [], now: new Date(T0).toISOString() })),
    context: { tool: { name: 'bash', input: { command } } },
    context_bytes: 60,
  };
}

function fakeLog(records: ReplayRecord[]) {
  const reads: ReadReplayLogOptions[] = [];
  return {
    reads,
    async *read(options: ReadReplayLogOptions): AsyncGenerator<ReplayLogItem> {
      reads.push(options);
      for (const entry of records) yield { kind: 'record', record: entry };
    },
  };
}

const job = (source: string): ConfigReplayJobData => ({
  replay_id: '5b0c2f4e-8f1a-4c59-9d57-2f3b1b1f3c11',
  source,
  since_ms: T0,
  until_ms: T0 + 60_000,
  agent: 'alice',
  trigger: 'pre-tool-use',
  limit: 100,
  requested_by: 'op-root',
  requested_at: new Date(T0).toISOString(),
});

/** A plugin the candidate names: only a worker that loads it can compile the candidate. */
const noForcePush: Oracle = {
  name: 'acme/no-force-push',
  triggers: ['pre-tool-use'],
  evaluate: (input) => {
    const command = JSON.stringify(input.context);
    return command.includes('--force') ? [{ intensity: 'block', payload: { level: 'blocking', decision: 'deny', reason: 'no force push', resolvable: true, resolution_path: [] } }] : [];
  },
};
const CANDIDATE = 'hooks:\n  pre-tool-use:\n    oracles:\n      - name: acme/no-force-push\n';

describe('replay job', () => {
  it('compiles the candidate with the worker plugins and replays the window with its filters', async () => {
    const log = fakeLog([record(1, 'ls'), record(2, 'git push --force')]);
    const progress: number[] = [];
    const processor = createConfigReplayProcessor({ log, plugins: [noForcePush], budgetMs: 1000, logger: silent, checkpointEvery: 1 });
    const report = await processor(job(CANDIDATE), { progress: async (p) => void progress.push(p.read), cancelled: async () => false });
    expect(log.reads).toEqual([{ sinceMs: T0, untilMs: T0 + 60_000, agentId: 'alice', trigger: 'pre-tool-use' }]);
    expect(report).toMatchObject({ total: 2, changed: 1, transitions: [{ from: 'allow', to: 'block', count: 1 }] });
    expect(progress).toEqual([1, 2, 2]);
  });

  it('fails with the issues when the candidate does not compile on this worker', async () => {
    const processor = createConfigReplayProcessor({ log: fakeLog([]), plugins: [], budgetMs: 1000, logger: silent });
    const run = processor(job(CANDIDATE), { progress: async () => undefined, cancelled: async () => false });
    await expect(run).rejects.toThrow(CandidateConfigError);
    await expect(run).rejects.toThrow(/candidate:4:\d+: hooks\.pre-tool-use\.oracles\[0\]\.name: unknown oracle "acme\/no-force-push"/);
  });

  it('stops at the next page once cancelled', async () => {
    const processor = createConfigReplayProcessor({ log: fakeLog([record(1, 'ls'), record(2, 'ls'), record(3, 'ls')]), plugins: [noForcePush], budgetMs: 1000, logger: silent, checkpointEvery: 1 });
    let asked = 0;
    const run = processor(job(CANDIDATE), { progress: async () => undefined, cancelled: async () => (asked += 1) >= 2 });
    await expect(run).rejects.toThrow(ConfigReplayCancelled);
    expect(asked).toBe(2);
  });

  describe('sharing the worker with hook jobs', () => {
    const records = Array.from({ length: 6 }, (_, i) => record(i + 1, 'ls'));
    const context = { progress: async () => undefined, cancelled: async () => false };

    it('pauses after every yieldEvery hooks while the slices stay short', async () => {
      let asked = 0;
      const processor = createConfigReplayProcessor({ log: fakeLog(records), plugins: [noForcePush], budgetMs: 1000, logger: silent, yieldEvery: 2, now: () => 0, hooksBusy: () => ((asked += 1), false) });
      expect((await processor(job(CANDIDATE), context)).total).toBe(6);
      expect(asked).toBe(3);
    });

    it('pauses after every hook once a slice has lasted sliceMs', async () => {
      let clock = 0;
      let asked = 0;
      const processor = createConfigReplayProcessor({ log: fakeLog(records), plugins: [noForcePush], budgetMs: 1000, logger: silent, yieldEvery: 20, sliceMs: 1, now: () => (clock += 2), hooksBusy: () => ((asked += 1), false) });
      expect((await processor(job(CANDIDATE), context)).total).toBe(6);
      expect(asked).toBe(6);
    });

    it('waits while a hook job runs, and goes on after maxDeferMs when hooks never stop', async () => {
      let busyFor = 3;
      let asked = 0;
      const waiting = createConfigReplayProcessor({ log: fakeLog(records), plugins: [noForcePush], budgetMs: 1000, logger: silent, yieldEvery: 6, now: () => 0, hooksBusy: () => ((asked += 1), (busyFor -= 1) >= 0) });
      expect((await waiting(job(CANDIDATE), context)).total).toBe(6);
      // One pause after the sixth hook: busy three times, then free.
      expect(asked).toBe(4);

      const starved = createConfigReplayProcessor({ log: fakeLog(records), plugins: [noForcePush], budgetMs: 1000, logger: silent, yieldEvery: 1, maxDeferMs: 2, hooksBusy: () => true });
      expect((await starved(job(CANDIDATE), context)).total).toBe(6);
    });
  });
});

describe('hook activity, as a replay sees it', () => {
  it('is busy while a hook job runs and for quietMs after the last one ended', async () => {
    let clock = 100;
    const activity = createHookActivity({ quietMs: 5, now: () => clock });
    expect(activity.busy()).toBe(false);
    let during: boolean | undefined;
    await activity.run(async () => {
      during = activity.busy();
    });
    expect(during).toBe(true);
    clock = 104;
    expect(activity.busy()).toBe(true);
    clock = 105;
    expect(activity.busy()).toBe(false);
  });

  it('counts a failed job as ended', async () => {
    let clock = 0;
    const activity = createHookActivity({ quietMs: 5, now: () => clock });
    await expect(activity.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    clock = 10;
    expect(activity.busy()).toBe(false);
  });
});
