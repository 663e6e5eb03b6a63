/**
 * The processor's own logic: deadline skip, first/duplicate accounting, logging. The HookStore
 * here is an in-memory stand-in for `decide` only; real Redis round trips belong to the system
 * tests.
 */
import { defaultOracles } from '@ahp/oracles';
import type { Oracle } from '@ahp/oracles';
import { aggregateSignals, failurePolicyDecision } from '@ahp/protocol';
import type { HookDecision, HookJobData, HookLateEvaluation, Signal } from '@ahp/protocol';
import type { DecideHookOptions, HookAidOrigin, HookAidSendOutcome, HookStore, Logger } from '@ahp/store';
import { describe, expect, it } from 'vitest';
import type { HookEvaluator } from './hooks-config.js';
import type { JobTracing } from './job-tracing.js';
import { createHookProcessor, oraclesEvaluator } from './processor.js';
import type { HookProcessorOptions } from './processor.js';

const HOOK_ID = '0b9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b';
const T0 = Date.parse('2025-01-02T03:04:05.000Z');

interface Line {
  level: string;
  fields: Record<string, unknown>;
  msg: string;
}

function memoryLogger(): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => lines.push({ level, fields, msg });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** First writer wins, as the real store guarantees. */
function memoryHooks(): Pick<HookStore, 'decide'> & { calls: number; stored: Map<string, HookDecision>; graces: (number | undefined)[]; options: (DecideHookOptions | undefined)[] } {
  const stored = new Map<string, HookDecision>();
  return {
    stored,
    calls: 0,
    graces: [],
    options: [],
    async decide(hookId, decision, _now, options) {
      this.calls += 1;
      this.graces.push(options?.answerGraceMs);
      this.options.push(options);
      const earlier = stored.get(hookId);
      if (earlier !== undefined) return { decision: earlier, first: false };
      stored.set(hookId, decision);
      return { decision, first: true };
    },
  };
}

function job(overrides: Partial<HookJobData> = {}): HookJobData {
  return {
    hook_id: HOOK_ID,
    trigger: 'pre-tool-use',
    agent: { id: 'agent-1', name: 'Agent One' },
    session_id: 'session-1',
    context: { tool: { name: 'Bash', input: { command: 'rm -rf /' } } },
    enqueued_at: T0 - 50,
    deadline_at: T0 + 5_000,
    ...overrides,
  };
}

const blockAll: Oracle = {
  name: 'block-all',
  evaluate: () => [
    {
      intensity: 'block',
      payload: { level: 'blocking', decision: 'deny', reason: 'no', resolvable: false, resolution_path: [] },
    },
  ],
};

function setup(overrides: Partial<HookProcessorOptions> = {}) {
  const logger = memoryLogger();
  const hooks = memoryHooks();
  let ids = 0;
  const processor = createHookProcessor({
    hooks,
    oracles: [blockAll],
    budgetMs: 1000,
    logger,
    now: () => T0,
    newId: () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`,
    ...overrides,
  });
  return { processor, hooks, logger };
}

const meta = { jobId: HOOK_ID, attemptsMade: 0 };
const correlation = { agentId: 'agent-1', sessionId: 'session-1', correlationId: HOOK_ID, jobId: HOOK_ID };

describe('hook processor', () => {
  it('evaluates the oracles and stores the decision, logging it as first', async () => {
    const { processor, hooks, logger } = setup();
    await processor.process(job(), meta);
    const decision = hooks.stored.get(HOOK_ID)!;
    expect(decision).toMatchObject({ hook_id: HOOK_ID, allowed: false, intensity: 'block', decided_by: 'oracles' });
    expect(decision.signals[0]!.header).toMatchObject({ source: 'block-all', timestamp: new Date(T0).toISOString() });
    expect(processor.stats()).toEqual({ evaluated: 1, decided: 1, duplicates: 0, skippedPastDeadline: 0, oracleFailures: 0, lateAid: 0 });
    const decided = logger.lines.find((l) => l.msg === 'hook decided')!;
    expect(decided.level).toBe('info');
    expect(decided.fields).toMatchObject({ ...correlation, trigger: 'pre-tool-use', allowed: false, intensity: 'block', decidedBy: 'oracles', signals: 1, queuedMs: 50 });
  });

  it("hands the oracles the hook's whole context: the default rules read a Bash command from the session's cwd", async () => {
    const decide = async (cwd: string) => {
      const { processor, hooks } = setup({ oracles: defaultOracles() });
      await processor.process(job({ context: { cwd, tool: { name: 'Bash', input: { command: 'rm -rf *' } } } }), meta);
      return hooks.stored.get(HOOK_ID)!;
    };
    // `cd /` in an earlier call: Claude Code's Bash is still there, and its hook says so.
    const atRoot = await decide('/');
    expect(atRoot).toMatchObject({ allowed: false, intensity: 'block' });
    expect(atRoot.signals[0]!.context).toMatchObject({ oracle: 'permission-check', rule: 'rm-root-or-home' });
    expect(await decide('/home/dev/app/build')).toMatchObject({ allowed: true, signals: [] });
  });

  it("hands decide the drill-down: enqueue and pick-up times and every oracle's verdict, and no trace context while tracing is off", async () => {
    const quiet: Oracle = { name: 'quiet', evaluate: () => [] };
    const { processor, hooks } = setup({ oracles: [quiet, blockAll] });
    await processor.process(job(), { ...meta, enqueuedAt: T0 - 20 });
    expect(hooks.options[0]).toEqual({
      evaluation: {
        agentId: 'agent-1',
        sessionId: 'session-1',
        enqueuedAt: T0 - 20,
        pickedAt: T0,
        context: job().context,
        oracles: [
          { oracle: 'quiet', outcome: 'answered', duration_ms: expect.any(Number), signals: 0 },
          { oracle: 'block-all', outcome: 'answered', duration_ms: expect.any(Number), signals: 1 },
        ],
      },
    });
  });

  it('traced: decide gets the trace id of a sampled job, and the stored decided_at is the instant the evaluation span ends', async () => {
    let clock = T0;
    const decidedAt: number[] = [];
    const nows: number[] = [];
    const tracing: JobTracing = {
      begin: () => ({
        traceId: '0af7651916cd43dd8448eb211c80319c',
        oracle: () => undefined,
        decide: (at, store) => {
          decidedAt.push(at);
          return store('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
        },
        end: () => undefined,
      }),
    };
    const hooks = memoryHooks();
    const decide = hooks.decide.bind(hooks);
    hooks.decide = (hookId, decision, now, options) => {
      nows.push(now);
      return decide(hookId, decision, now, options);
    };
    const { processor } = setup({ hooks, tracing, now: () => (clock += 3) });
    await processor.process(job(), meta);
    expect(decidedAt).toHaveLength(1);
    expect(nows).toEqual(decidedAt);
    expect(hooks.options[0]).toMatchObject({ evaluation: { traceId: '0af7651916cd43dd8448eb211c80319c' }, traceparent: expect.stringMatching(/^00-/) as unknown });
  });

  it('counts a second evaluation of the same hook as a duplicate and keeps the first decision', async () => {
    const { processor, hooks, logger } = setup();
    await processor.process(job(), meta);
    const first = hooks.stored.get(HOOK_ID);
    await processor.process(job(), { jobId: HOOK_ID, attemptsMade: 1 });
    expect(hooks.calls).toBe(2);
    expect(hooks.stored.get(HOOK_ID)).toBe(first);
    expect(processor.stats()).toMatchObject({ evaluated: 2, decided: 1, duplicates: 1 });
    const duplicate = logger.lines.find((l) => l.msg.startsWith('hook already decided'))!;
    expect(duplicate.fields).toMatchObject({ ...correlation, attemptsMade: 1, storedDecidedBy: 'oracles', storedIntensity: 'block' });
  });

  it("reports what it did with a hook the gateway's failure policy decided first: a skip past the deadline, or its too-late evaluation; nothing otherwise", async () => {
    const reports: { hookId: string; late: HookLateEvaluation }[] = [];
    const lateReports = { recordLate: async (hookId: string, late: HookLateEvaluation) => void reports.push({ hookId, late }) };
    // Picked up after the deadline: skipped, reported with its queue times.
    const skipping = setup({ lateReports });
    await skipping.processor.process(job({ deadline_at: T0 - 1 }), { ...meta, enqueuedAt: T0 - 20 });
    expect(reports).toEqual([{ hookId: HOOK_ID, late: { outcome: 'skipped', enqueued_at: T0 - 20, picked_at: T0 } }]);

    // Evaluated, but the gateway's policy was stored first: what it would have decided is reported.
    reports.length = 0;
    const late = setup({ lateReports });
    late.hooks.stored.set(HOOK_ID, failurePolicyDecision({ hookId: HOOK_ID, trigger: 'pre-tool-use', policy: 'fail_closed', code: 'E_TIMEOUT', message: 'late', now: new Date(T0).toISOString() }));
    await late.processor.process(job(), { ...meta, enqueuedAt: T0 - 20 });
    expect(reports).toEqual([
      {
        hookId: HOOK_ID,
        late: {
          outcome: 'evaluated',
          enqueued_at: T0 - 20,
          picked_at: T0,
          finished_at: T0,
          allowed: false,
          intensity: 'block',
          decided_by: 'oracles',
          signals: 1,
          oracles: [{ oracle: 'block-all', outcome: 'answered', duration_ms: expect.any(Number), signals: 1 }],
        },
      },
    ]);

    // Stored first, or second behind another worker's decision: nothing to report.
    reports.length = 0;
    const normal = setup({ lateReports });
    await normal.processor.process(job(), meta);
    await normal.processor.process(job(), { ...meta, attemptsMade: 1 });
    expect(reports).toEqual([]);

    // A report that fails is logged, and the job still ends normally.
    const failing = setup({ lateReports: { recordLate: () => Promise.reject(new Error('redis down')) } });
    await failing.processor.process(job({ deadline_at: T0 - 1 }), meta);
    expect(failing.logger.lines.some((line) => line.level === 'warn' && line.msg.startsWith('recording the late evaluation failed'))).toBe(true);
  });

  it.each([
    ['at', T0],
    ['after', T0 - 1],
  ])('skips a job picked up %s its deadline without deciding', async (_when, deadline) => {
    const { processor, hooks, logger } = setup();
    await processor.process(job({ deadline_at: deadline }), meta);
    expect(hooks.calls).toBe(0);
    expect(processor.stats()).toEqual({ evaluated: 0, decided: 0, duplicates: 0, skippedPastDeadline: 1, oracleFailures: 0, lateAid: 0 });
    expect(logger.lines).toEqual([
      {
        level: 'info',
        msg: 'hook job skipped: its deadline passed and the gateway answered by failure policy',
        fields: expect.objectContaining({ ...correlation, deadlineAt: deadline, lateByMs: T0 - deadline }),
      },
    ]);
  });

  it('stores the failure-policy decision when an oracle fails, and logs the oracle', async () => {
    const broken: Oracle = {
      name: 'broken',
      evaluate: () => {
        throw new Error('boom');
      },
    };
    const { processor, hooks, logger } = setup({ oracles: [broken] });
    await processor.process(job(), meta);
    expect(hooks.stored.get(HOOK_ID)).toMatchObject({ allowed: false, decided_by: 'failure_policy', error: { code: 'E_INTERNAL' } });
    expect(processor.stats()).toMatchObject({ decided: 1, oracleFailures: 1 });
    const warning = logger.lines.find((l) => l.level === 'warn')!;
    expect(warning.msg).toBe('oracle failed');
    expect(warning.fields).toMatchObject({ ...correlation, oracle: 'broken', outcome: 'threw', reason: 'Error: boom' });
    expect(warning.fields['error']).toBeInstanceOf(Error);
  });

  it('logs answered oracles at debug level', async () => {
    const { processor, logger } = setup();
    await processor.process(job(), meta);
    expect(logger.lines.find((l) => l.msg === 'oracle answered')).toMatchObject({
      level: 'debug',
      fields: { oracle: 'block-all', outcome: 'answered', signals: 1 },
    });
  });

  it('gives no oracle more time than is left before the deadline', async () => {
    const slow: Oracle = { name: 'slow', evaluate: () => new Promise(() => undefined) };
    const { processor, hooks } = setup({ oracles: [slow], budgetMs: 60_000 });
    await processor.process(job({ deadline_at: T0 + 15 }), meta);
    expect(hooks.stored.get(HOOK_ID)).toMatchObject({ decided_by: 'failure_policy', error: { code: 'E_TIMEOUT' } });
    expect(hooks.stored.get(HOOK_ID)!.error!.message).toContain('within 15 ms');
  });

  it('fails the job when the decision cannot be stored, so BullMQ retries it', async () => {
    const { processor } = setup({
      hooks: {
        decide: () => Promise.reject(new Error('redis unavailable')),
      },
    });
    await expect(processor.process(job(), meta)).rejects.toThrow('redis unavailable');
    expect(processor.stats()).toMatchObject({ evaluated: 1, decided: 0, duplicates: 0 });
  });

  it('evaluates each job with the evaluator active when it starts, and logs its configuration version', async () => {
    const versions: (number | undefined)[] = [];
    let active: HookEvaluator = oraclesEvaluator([blockAll]);
    const versioned = (version: number): HookEvaluator => ({
      version,
      evaluate: async (input, deps) => {
        versions.push(version);
        active = versioned(version + 1); // a swap during the evaluation does not change this job's version
        return aggregateSignals({ hookId: input.hookId, trigger: input.trigger, signals: [], now: deps.now().toISOString(), configVersion: version });
      },
    });
    const { processor, hooks, logger } = setup({ evaluator: () => active });
    await processor.process(job(), meta);
    expect(hooks.stored.get(HOOK_ID)).not.toHaveProperty('config_version');
    active = versioned(7);
    const second = '1b9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b';
    await processor.process(job({ hook_id: second }), { jobId: second, attemptsMade: 0 });
    expect(versions).toEqual([7]);
    expect(hooks.stored.get(second)).toMatchObject({ config_version: 7, allowed: true });
    expect(logger.lines.filter((l) => l.msg === 'hook decided').map((l) => l.fields['configVersion'])).toEqual([undefined, 7]);
    expect(active.version).toBe(8);
  });

  it("passes the evaluated version's answer grace of the job's trigger to decide (the store's default without one)", async () => {
    const graced: HookEvaluator = {
      version: 3,
      answerGraceMs: (trigger) => (trigger === 'pre-tool-use' ? 5_000 : 1),
      evaluate: async (input, deps) => aggregateSignals({ hookId: input.hookId, trigger: input.trigger, signals: [], now: deps.now().toISOString(), configVersion: 3 }),
    };
    let active: HookEvaluator = oraclesEvaluator([blockAll]);
    const { processor, hooks } = setup({ evaluator: () => active });
    await processor.process(job(), meta);
    active = graced;
    const second = '2c9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b';
    await processor.process(job({ hook_id: second }), { jobId: second, attemptsMade: 0 });
    expect(hooks.graces).toEqual([undefined, 5_000]);
  });

  describe('late aid of post-* hooks', () => {
    const advise: Oracle = {
      name: 'advise',
      evaluate: () => [
        { intensity: 'aid', payload: { level: 'aiding', decision: 'suggest', context: 'the command wrote 3 files', suggestions: [{ type: 'follow_up', description: 'run the tests' }] } },
      ],
    };

    /** Records what the processor pushed; the second push of a hook is a duplicate, as in Redis. */
    function aidStore() {
      const pushed: { origin: HookAidOrigin; signals: readonly Signal[]; expiresAt: number }[] = [];
      return {
        pushed,
        async sendHookAid(origin: HookAidOrigin, signals: readonly Signal[], expiresAt: number): Promise<HookAidSendOutcome> {
          if (pushed.some((p) => p.origin.hookId === origin.hookId)) return { outcome: 'duplicate' };
          pushed.push({ origin, signals, expiresAt });
          return { outcome: 'sent', gatewayId: 'gw-1' };
        },
      };
    }

    /** The gateway's answer at the deadline, stored before the worker's evaluation ends. */
    function answeredByPolicy(hooks: ReturnType<typeof memoryHooks>, trigger: HookJobData['trigger']) {
      hooks.stored.set(HOOK_ID, failurePolicyDecision({ hookId: HOOK_ID, trigger, policy: 'fail_open', code: 'E_TIMEOUT', message: 'late', now: new Date(T0).toISOString() }));
    }

    it('pushes the aid of a post-* hook the gateway answered by failure policy, once, tied to the hook', async () => {
      const store = aidStore();
      const { processor, hooks, logger } = setup({ oracles: [advise], lateAid: { store, windowMs: 30_000, ttlMs: 60_000 } });
      answeredByPolicy(hooks, 'post-tool-use');
      await processor.process(job({ trigger: 'post-tool-use' }), meta);
      expect(store.pushed).toHaveLength(1);
      // With the hook's context, so the log entry says what the aid is about.
      expect(store.pushed[0]!.origin).toEqual({ agentId: 'agent-1', sessionId: 'session-1', hookId: HOOK_ID, trigger: 'post-tool-use', context: job({ trigger: 'post-tool-use' }).context });
      expect(store.pushed[0]!.expiresAt).toBe(T0 + 60_000);
      expect(store.pushed[0]!.signals.map((s) => s.header)).toEqual([expect.objectContaining({ intensity: 'aid', source: 'advise', correlation_id: HOOK_ID })]);
      expect(hooks.stored.get(HOOK_ID)).toMatchObject({ decided_by: 'failure_policy' });
      expect(processor.stats()).toMatchObject({ evaluated: 1, decided: 0, lateAid: 1, duplicates: 0 });
      expect(logger.lines.find((l) => l.msg.includes('their aid was pushed'))?.fields).toMatchObject({ lateSignals: 1, pushedVia: 'gw-1' });

      // A re-run of the same job (a stalled worker) evaluates again but pushes nothing more.
      await processor.process(job({ trigger: 'post-tool-use' }), { jobId: HOOK_ID, attemptsMade: 1 });
      expect(store.pushed).toHaveLength(1);
      expect(processor.stats()).toMatchObject({ lateAid: 1, duplicates: 1 });
    });

    it('evaluates a post-* job picked up past its deadline while the window lasts, and lets its oracles run into it', async () => {
      const store = aidStore();
      const { processor, hooks } = setup({ oracles: [advise], lateAid: { store, windowMs: 30_000 } });
      answeredByPolicy(hooks, 'post-tool-use');
      await processor.process(job({ trigger: 'post-tool-use', deadline_at: T0 - 1_000 }), meta);
      expect(store.pushed).toHaveLength(1);
      expect(processor.stats()).toMatchObject({ skippedPastDeadline: 0, lateAid: 1 });

      const after = aidStore();
      const beyond = setup({ oracles: [advise], lateAid: { store: after, windowMs: 30_000 } });
      await beyond.processor.process(job({ trigger: 'post-tool-use', deadline_at: T0 - 30_000 }), meta);
      expect(after.pushed).toEqual([]);
      expect(beyond.processor.stats()).toMatchObject({ skippedPastDeadline: 1 });
    });

    it('pushes nothing when the stored decision came from the oracles (the agent already had their aid)', async () => {
      const store = aidStore();
      const { processor } = setup({ oracles: [advise], lateAid: { store, windowMs: 30_000 } });
      await processor.process(job({ trigger: 'post-tool-use' }), meta);
      await processor.process(job({ trigger: 'post-tool-use' }), { jobId: HOOK_ID, attemptsMade: 1 });
      expect(store.pushed).toEqual([]);
      expect(processor.stats()).toMatchObject({ decided: 1, duplicates: 1, lateAid: 0 });
    });

    it('never pushes for other triggers, and skips them past the deadline as before', async () => {
      const store = aidStore();
      const { processor, hooks } = setup({ oracles: [advise], lateAid: { store, windowMs: 30_000 } });
      answeredByPolicy(hooks, 'pre-tool-use');
      await processor.process(job(), meta);
      await processor.process(job({ hook_id: '3d9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b', deadline_at: T0 - 1 }), meta);
      expect(store.pushed).toEqual([]);
      expect(processor.stats()).toMatchObject({ duplicates: 1, skippedPastDeadline: 1, lateAid: 0 });
    });

    it('is off with a zero window: post-* hooks are cut at their deadline', async () => {
      const store = aidStore();
      const { processor } = setup({ oracles: [advise], lateAid: { store, windowMs: 0 } });
      await processor.process(job({ trigger: 'post-tool-use', deadline_at: T0 - 1 }), meta);
      expect(store.pushed).toEqual([]);
      expect(processor.stats()).toMatchObject({ skippedPastDeadline: 1 });
    });
  });
});
