/**
 * Recording evaluated hooks for replays: what the processor hands to the replay log (the oracles'
 * decision, before the approval flow), and that a failing log never touches the decision.
 */
import type { Oracle } from '@ahp/oracles';
import { aggregateSignals, type HookDecision, type HookJobData } from '@ahp/protocol';
import type { HookStore, Logger, ReplayLogAppend } from '@ahp/store';
import { describe, expect, it } from 'vitest';
import { createHookProcessor } from './processor.js';
import { createReplayRecorder } from './replay-recorder.js';

const HOOK_ID = '0b9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b';
const T0 = Date.parse('2025-01-02T03:04:05.000Z');

function memoryLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const none = () => undefined;
  return { warnings, debug: none, info: none, warn: (_fields, msg) => warnings.push(msg), error: none };
}

const job: HookJobData = {
  hook_id: HOOK_ID,
  trigger: 'pre-tool-use',
  agent: { id: 'agent-1', name: 'Agent One' },
  session_id: 'session-1',
  context: { tool: { name: 'Bash', input: { command: 'git push --force' } } },
  enqueued_at: T0 - 50,
  deadline_at: T0 + 5_000,
};

const blockAll: Oracle = {
  name: 'block-all',
  evaluate: () => [{ intensity: 'block', payload: { level: 'blocking', decision: 'deny', reason: 'no', resolvable: false, resolution_path: [] } }],
};

function hooks(): Pick<HookStore, 'decide'> & { stored: HookDecision[] } {
  const stored: HookDecision[] = [];
  return {
    stored,
    async decide(_hookId, decision) {
      stored.push(decision);
      return { decision, first: true };
    },
  };
}

describe('replay recorder', () => {
  it('records the context and the oracles decision, not what the approval flow made of it', async () => {
    const appended: ReplayLogAppend[] = [];
    const store = hooks();
    const logger = memoryLogger();
    const allowed = (input: HookDecision): HookDecision => aggregateSignals({ hookId: input.hook_id, trigger: input.trigger, signals: [], now: input.decided_at });
    const processor = createHookProcessor({
      hooks: store,
      oracles: [blockAll],
      budgetMs: 1000,
      logger,
      now: () => T0,
      // Stands in for a person's approval turning the block into an allow.
      approvals: async (_job, decision) => allowed(decision),
      recorder: createReplayRecorder({ log: { append: async (input) => void appended.push(input) }, logger, now: () => T0 }),
    });
    await processor.process(job, { jobId: '1', attemptsMade: 0 });
    expect(store.stored[0]?.allowed).toBe(true);
    expect(appended).toHaveLength(1);
    expect(appended[0]).toMatchObject({ hookId: HOOK_ID, trigger: 'pre-tool-use', agent: job.agent, sessionId: 'session-1', context: job.context, at: T0, configVersion: undefined });
    expect(appended[0]?.decision).toMatchObject({ allowed: false, intensity: 'block' });
  });

  it('never fails or changes the decision when the log fails, and logs the failures sparingly', async () => {
    const store = hooks();
    const logger = memoryLogger();
    let failures = 0;
    const processor = createHookProcessor({
      hooks: store,
      oracles: [blockAll],
      budgetMs: 1000,
      logger,
      now: () => T0,
      recorder: createReplayRecorder({
        log: {
          append: async () => {
            throw new Error('connection lost');
          },
        },
        logger,
        now: () => T0,
        onFailure: () => (failures += 1),
      }),
    });
    await processor.process(job, { jobId: '1', attemptsMade: 0 });
    await processor.process({ ...job, hook_id: '1b9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b' }, { jobId: '2', attemptsMade: 0 });
    expect(store.stored.map((d) => d.intensity)).toEqual(['block', 'block']);
    expect(processor.stats().decided).toBe(2);
    expect(failures).toBe(2);
    expect(logger.warnings).toEqual(['recording a hook in the replay log failed; its decision is not affected']);
  });
});
