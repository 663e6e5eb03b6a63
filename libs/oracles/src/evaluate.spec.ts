import { HookDecisionSchema, SignalSchema } from '@ahp/protocol';
import type { HookTrigger, SignalPayload } from '@ahp/protocol';
import { describe, expect, it, vi } from 'vitest';
import { evaluateHook } from './evaluate.js';
import type { EvaluateHookOptions, OracleRunReport } from './evaluate.js';
import type { Oracle, OracleInput, OracleVerdict } from './oracle.js';

const HOOK_ID = '0b9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b';
const NOW = new Date('2025-01-02T03:04:05.678Z');

function uuids(): () => string {
  let n = 0;
  return () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
}

function input(trigger: HookTrigger = 'pre-tool-use', context: OracleInput['context'] = {}): OracleInput {
  return {
    hookId: HOOK_ID,
    trigger,
    context: { tool: { name: 'Bash', input: { command: 'ls' } }, ...context },
    agent: { id: 'agent-1', name: 'Agent One' },
    sessionId: 'session-1',
  };
}

function options(overrides: Partial<EvaluateHookOptions> = {}): EvaluateHookOptions {
  return { input: input(), oracles: [], now: () => NOW, newId: uuids(), budgetMs: 1000, ...overrides };
}

function oracle(name: string, answer: Oracle['evaluate'], triggers?: HookTrigger[]): Oracle {
  return { name, ...(triggers === undefined ? {} : { triggers }), evaluate: answer };
}

const blocking: SignalPayload = {
  level: 'blocking',
  decision: 'deny',
  reason: 'not allowed',
  resolvable: true,
  resolution_path: ['do it differently'],
};

function control(target: string, updated: number): SignalPayload {
  return {
    level: 'controlling',
    decision: 'allow_with_modification',
    modifications: [{ target, original: 10_000, updated, reason: `cap ${target}` }],
    reversible: true,
  };
}

const prompting: SignalPayload = {
  level: 'prompting',
  decision: 'warn',
  severity: 'medium',
  message: 'large change',
  suggestions: [],
  continue_allowed: true,
};

const aiding: SignalPayload = { level: 'aiding', decision: 'suggest', context: 'done', suggestions: [] };

describe('evaluateHook: aggregation', () => {
  it('allows without intervention when no oracle answers the trigger', async () => {
    const skipped = vi.fn(() => [{ intensity: 'block' as const, payload: blocking }]);
    const decision = await evaluateHook(options({ oracles: [oracle('post-only', skipped, ['post-tool-use'])] }));
    expect(skipped).not.toHaveBeenCalled();
    expect(decision).toEqual({
      hook_id: HOOK_ID,
      trigger: 'pre-tool-use',
      allowed: true,
      intensity: null,
      signals: [],
      modifications: [],
      warnings: [],
      decided_by: 'oracles',
      decided_at: NOW.toISOString(),
    });
  });

  it('builds full signal headers and provenance from a verdict', async () => {
    const decision = await evaluateHook(
      options({
        configVersion: 7,
        oracles: [oracle('guard', () => [{ intensity: 'block', payload: blocking, rule: 'no-rm' }])],
      }),
    );
    expect(HookDecisionSchema.parse(decision)).toEqual(decision);
    expect(decision.allowed).toBe(false);
    expect(decision.intensity).toBe('block');
    expect(decision.decided_by).toBe('oracles');
    expect(decision.config_version).toBe(7);
    expect(decision.signals).toHaveLength(1);
    const signal = decision.signals[0]!;
    expect(SignalSchema.parse(signal)).toEqual(signal);
    expect(signal.header).toEqual({
      id: '00000000-0000-4000-8000-000000000001',
      type: 'permission-check',
      timestamp: NOW.toISOString(),
      source: 'guard',
      intensity: 'block',
      correlation_id: HOOK_ID,
    });
    expect(signal.context).toEqual({ oracle: 'guard', trigger: 'pre-tool-use', rule: 'no-rm', config_version: 7 });
    expect(signal.payload).toEqual(blocking);
  });

  it('uses the verdict type when given and leaves out provenance it does not have', async () => {
    const decision = await evaluateHook(
      options({ oracles: [oracle('guard', () => [{ intensity: 'control', type: 'security-violation', payload: control('n', 1) }])] }),
    );
    expect(decision.signals[0]!.header.type).toBe('security-violation');
    expect(decision.signals[0]!.context).toEqual({ oracle: 'guard', trigger: 'pre-tool-use' });
    expect(decision).not.toHaveProperty('config_version');
  });

  it('runs oracles in order and merges their answers', async () => {
    const calls: string[] = [];
    const decision = await evaluateHook(
      options({
        input: input('pre-issue-submit'),
        oracles: [
          oracle('first', () => {
            calls.push('first');
            return [{ intensity: 'control', payload: control('batch_size', 1000) }];
          }),
          oracle('second', async () => {
            calls.push('second');
            return [
              { intensity: 'control', payload: control('batch_size', 5) },
              { intensity: 'prompt', payload: prompting },
            ];
          }),
        ],
      }),
    );
    expect(calls).toEqual(['first', 'second']);
    expect(decision.intensity).toBe('control');
    expect(decision.allowed).toBe(true);
    expect(decision.signals.map((s) => s.header.source)).toEqual(['first', 'second', 'second']);
    expect(decision.signals.map((s) => s.header.id)).toEqual([
      '00000000-0000-4000-8000-000000000001',
      '00000000-0000-4000-8000-000000000002',
      '00000000-0000-4000-8000-000000000003',
    ]);
    // Both cap batch_size: the stricter (smaller) limit wins, whichever oracle set it.
    expect(decision.modifications).toEqual([{ target: 'batch_size', original: 10_000, updated: 5, reason: 'cap batch_size' }]);
    expect(decision.warnings).toEqual(['large change']);
  });

  it('stops at the first block: later oracles are not consulted', async () => {
    const later = vi.fn(() => {
      throw new Error('must not run');
    });
    const decision = await evaluateHook(
      options({ oracles: [oracle('guard', () => [{ intensity: 'block', payload: blocking }]), oracle('later', later)] }),
    );
    expect(later).not.toHaveBeenCalled();
    expect(decision.decided_by).toBe('oracles');
    expect(decision.allowed).toBe(false);
  });

  it('gives every oracle a frozen copy of the input', async () => {
    const original = input();
    const seen: OracleInput[] = [];
    const decision = await evaluateHook(
      options({
        input: original,
        oracles: [
          oracle('mutator', (given) => {
            seen.push(given);
            (given.context['tool'] as Record<string, unknown>)['name'] = 'rm';
            return [];
          }),
        ],
      }),
    );
    expect(decision.decided_by).toBe('failure_policy');
    expect(seen[0]).not.toBe(original);
    expect(Object.isFrozen(seen[0]!.agent)).toBe(true);
    expect((original.context['tool'] as Record<string, unknown>)['name']).toBe('Bash');
    expect(Object.isFrozen(original.context)).toBe(false);
  });

  it('freezes an input the caller hands over in place, without copying it', async () => {
    const original = input();
    const seen: OracleInput[] = [];
    const decision = await evaluateHook(
      options({
        input: original,
        inputIsOwned: true,
        oracles: [
          oracle('mutator', (given) => {
            seen.push(given);
            (given.context['tool'] as Record<string, unknown>)['name'] = 'rm';
            return [];
          }),
        ],
      }),
    );
    expect(decision.decided_by).toBe('failure_policy');
    expect(seen[0]!.context).toBe(original.context);
    expect(Object.isFrozen(original.context['tool'])).toBe(true);
    expect((original.context['tool'] as Record<string, unknown>)['name']).toBe('Bash');
  });
});

describe('evaluateHook: failures go to the failure policy', () => {
  const throwing = oracle('broken', () => {
    throw new Error('database password is hunter2');
  });

  it('denies under fail_closed (the pre-tool-use default) when an oracle throws', async () => {
    const later = vi.fn(() => []);
    const reports: OracleRunReport[] = [];
    const decision = await evaluateHook(
      options({ oracles: [throwing, oracle('later', later)], onOracleSettled: (r) => reports.push(r) }),
    );
    expect(HookDecisionSchema.parse(decision)).toEqual(decision);
    expect(decision).toMatchObject({
      allowed: false,
      intensity: 'block',
      signals: [],
      decided_by: 'failure_policy',
      error: { code: 'E_INTERNAL' },
    });
    expect(decision.error!.message).toContain('"broken"');
    expect(decision.error!.message).toContain('fail_closed');
    expect(decision.error!.message).not.toContain('hunter2');
    expect(later).not.toHaveBeenCalled();
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ oracle: 'broken', outcome: 'threw', signals: 0 });
    expect(reports[0]!.message).toContain('hunter2');
    expect(reports[0]!.error).toBeInstanceOf(Error);
  });

  it('lets the call through, saying why, under fail_open', async () => {
    const decision = await evaluateHook(options({ oracles: [throwing], failurePolicy: 'fail_open', configVersion: 3 }));
    expect(HookDecisionSchema.parse(decision)).toEqual(decision);
    expect(decision).toMatchObject({
      allowed: true,
      intensity: null,
      decided_by: 'failure_policy',
      error: { code: 'E_INTERNAL' },
      config_version: 3,
    });
  });

  it('follows the trigger default (fail_open after the fact) on a rejected promise', async () => {
    const decision = await evaluateHook(
      options({ input: input('post-tool-use'), oracles: [oracle('broken', () => Promise.reject(new Error('boom')))] }),
    );
    expect(decision).toMatchObject({ allowed: true, decided_by: 'failure_policy', error: { code: 'E_INTERNAL' } });
  });

  it('drops signals gathered before a failure', async () => {
    const decision = await evaluateHook(
      options({ oracles: [oracle('ok', () => [{ intensity: 'control', payload: control('n', 1) }]), throwing] }),
    );
    expect(decision.decided_by).toBe('failure_policy');
    expect(decision.signals).toEqual([]);
    expect(decision.modifications).toEqual([]);
  });

  it('abandons an oracle that exceeds its budget and aborts its signal', async () => {
    let received: AbortSignal | undefined;
    const reports: OracleRunReport[] = [];
    const slow = oracle('slow', (_input, ctx) => {
      received = ctx.signal;
      return new Promise<OracleVerdict[]>(() => undefined);
    });
    const decision = await evaluateHook(options({ oracles: [slow], budgetMs: 20, onOracleSettled: (r) => reports.push(r) }));
    expect(decision).toMatchObject({ allowed: false, decided_by: 'failure_policy', error: { code: 'E_TIMEOUT' } });
    expect(decision.error!.message).toContain('"slow" did not answer within 20 ms');
    expect(received?.aborted).toBe(true);
    expect((received?.reason as DOMException).name).toBe('TimeoutError');
    expect(reports[0]).toMatchObject({ oracle: 'slow', outcome: 'timeout' });
  });

  it('gives an oracle that first reads its signal after the budget ran out an aborted one', async () => {
    let readLate: Promise<AbortSignal> | undefined;
    const late = oracle('late-reader', (_input, ctx) => {
      // The signal is made on first read; reading it only once abandoned must still say so.
      readLate = new Promise((resolve) => setTimeout(() => resolve(ctx.signal), 30));
      return new Promise<OracleVerdict[]>(() => undefined);
    });
    const decision = await evaluateHook(options({ oracles: [late], budgetMs: 5 }));
    expect(decision.error?.code).toBe('E_TIMEOUT');
    const signal = await readLate;
    expect(signal?.aborted).toBe(true);
    expect((signal?.reason as DOMException).name).toBe('TimeoutError');
  });

  it('treats a synchronous answer that came after the budget as a timeout', async () => {
    const hog = oracle('hog', () => {
      const until = performance.now() + 30;
      while (performance.now() < until) {
        // blocks the event loop past the budget
      }
      return [];
    });
    const decision = await evaluateHook(options({ oracles: [hog], budgetMs: 5 }));
    expect(decision.error?.code).toBe('E_TIMEOUT');
  });

  it('ignores a late rejection of an abandoned oracle', async () => {
    const late = oracle('late', () => new Promise<OracleVerdict[]>((_, reject) => setTimeout(() => reject(new Error('late')), 30)));
    const decision = await evaluateHook(options({ oracles: [late], budgetMs: 5 }));
    expect(decision.error?.code).toBe('E_TIMEOUT');
    await new Promise((resolve) => setTimeout(resolve, 40));
  });

  it('cuts the budget to the hook deadline, and skips oracles once it has passed', async () => {
    const slow = oracle('slow', () => new Promise<OracleVerdict[]>(() => undefined));
    const cut = await evaluateHook(options({ oracles: [slow], budgetMs: 60_000, deadlineAt: NOW.getTime() + 10 }));
    expect(cut.error).toMatchObject({ code: 'E_TIMEOUT' });
    expect(cut.error!.message).toContain('within 10 ms');

    const never = vi.fn(() => []);
    const late = await evaluateHook(options({ oracles: [oracle('never', never)], deadlineAt: NOW.getTime() }));
    expect(never).not.toHaveBeenCalled();
    expect(late.error).toMatchObject({ code: 'E_TIMEOUT' });
    expect(late.error!.message).toContain("deadline passed before oracle \"never\" could run");
  });

  const invalid: [string, unknown, string][] = [
    ['an answer that is not an array', { intensity: 'block' }, 'expected an array of verdicts, got an object'],
    ['a verdict that is not an object', ['block'], 'verdict 0: expected an object, got string'],
    ['an unknown intensity', [{ intensity: 'stop', payload: blocking }], 'verdict 0: "intensity" must be one of'],
    ['an intensity the trigger does not allow', [{ intensity: 'prompt', payload: prompting }], 'intensity "prompt" is not allowed at pre-tool-use (allowed: block, control)'],
    ['an invalid payload', [{ intensity: 'block', payload: { ...blocking, reason: '' } }], 'verdict 0: invalid payload: payload.reason'],
    ['a payload level that does not match', [{ intensity: 'control', payload: blocking }], 'payload level "blocking" does not match intensity "control"'],
    ['a signal type that is not kebab-case', [{ intensity: 'block', type: 'Bad Type', payload: blocking }], 'header.type'],
    ['an empty rule name', [{ intensity: 'block', rule: '', payload: blocking }], '"rule" must be a string'],
  ];

  it.each(invalid)('fails the hook on %s', async (_label, answer, problem) => {
    const decision = await evaluateHook(options({ oracles: [oracle('sloppy', () => answer as OracleVerdict[])] }));
    expect(decision).toMatchObject({ allowed: false, decided_by: 'failure_policy', error: { code: 'E_INTERNAL' } });
    expect(decision.error!.message).toContain('oracle "sloppy" returned an invalid answer');
    expect(decision.error!.message).toContain(problem);
  });

  it('fails the hook when the signal id is not a UUID', async () => {
    const decision = await evaluateHook(
      options({ newId: () => 'not-a-uuid', oracles: [oracle('guard', () => [{ intensity: 'block', payload: blocking }])] }),
    );
    expect(decision.error?.message).toContain('header.id');
  });

  it('fails the hook when the aggregated decision breaks a protocol limit', async () => {
    const many = Array.from({ length: 1001 }, () => ({ intensity: 'aid' as const, payload: aiding }));
    const decision = await evaluateHook(options({ input: input('post-tool-use'), oracles: [oracle('chatty', () => many)] }));
    expect(decision).toMatchObject({ decided_by: 'failure_policy', error: { code: 'E_INTERNAL' } });
    expect(decision.error!.message).toContain('aggregated decision is invalid: signals');
  });
});

describe('evaluateHook: options and observers', () => {
  it('reports each answered oracle and survives an observer that throws', async () => {
    const reports: OracleRunReport[] = [];
    const decision = await evaluateHook(
      options({
        oracles: [oracle('a', () => []), oracle('b', () => [{ intensity: 'control', payload: control('n', 1) }])],
        onOracleSettled: (report) => {
          reports.push(report);
          throw new Error('observer bug');
        },
      }),
    );
    expect(decision.decided_by).toBe('oracles');
    expect(reports.map((r) => [r.oracle, r.outcome, r.signals])).toEqual([
      ['a', 'answered', 0],
      ['b', 'answered', 1],
    ]);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('rejects budgetMs %s', async (budgetMs) => {
    await expect(evaluateHook(options({ budgetMs }))).rejects.toThrow(RangeError);
  });
});

describe('evaluateHook: per-oracle settings, counters and details', () => {
  const boom = oracle('boom', () => {
    throw new Error('x');
  });
  const blocker = oracle('blocker', () => [{ intensity: 'block', payload: blocking }]);

  it('skips an oracle whose own policy is fail_open, reports it, and lets the others decide', async () => {
    const reports: OracleRunReport[] = [];
    const decision = await evaluateHook(
      options({
        oracles: [boom, blocker],
        oracleSettings: (o) => (o === boom ? { failurePolicy: 'fail_open' } : undefined),
        onOracleSettled: (report) => reports.push(report),
      }),
    );
    expect(decision).toMatchObject({ allowed: false, decided_by: 'oracles', error: { code: 'E_INTERNAL' } });
    expect(HookDecisionSchema.safeParse(decision).success).toBe(true);
    expect(reports.map((r) => [r.oracle, r.outcome, r.skipped])).toEqual([
      ['boom', 'threw', true],
      ['blocker', 'answered', undefined],
    ]);
  });

  it('an oracle fail_closed policy overrides a fail_open hook', async () => {
    const decision = await evaluateHook(
      options({ input: input('user-prompt-submit'), oracles: [boom], oracleSettings: () => ({ failurePolicy: 'fail_closed' }) }),
    );
    expect(decision).toMatchObject({ allowed: false, intensity: 'block', decided_by: 'failure_policy' });
  });

  it('gives each oracle its own budget', async () => {
    const slow = oracle('slow', () => new Promise(() => undefined));
    const decision = await evaluateHook(options({ budgetMs: 60_000, oracles: [slow], oracleSettings: () => ({ budgetMs: 10 }) }));
    expect(decision.error).toMatchObject({ code: 'E_TIMEOUT', message: expect.stringContaining('within 10 ms') });
  });

  it('hands counters and the configuration version to oracles, and records verdict details', async () => {
    const counters = { recordViolation: vi.fn(), recordCompliance: vi.fn(), countToolCall: vi.fn(), countIteration: vi.fn() };
    let seen: unknown;
    const decision = await evaluateHook(
      options({
        configVersion: 3,
        counters,
        oracles: [
          oracle('with-details', (_input, ctx) => {
            seen = [ctx.counters, ctx.configVersion];
            return [{ intensity: 'block', payload: blocking, details: { code: 'X', count: 2 } }];
          }),
        ],
      }),
    );
    expect(seen).toEqual([counters, 3]);
    expect(decision.signals[0]!.context).toEqual({ oracle: 'with-details', trigger: 'pre-tool-use', config_version: 3, details: { code: 'X', count: 2 } });
  });

  it('refuses details that are not a JSON object', async () => {
    const decision = await evaluateHook(options({ oracles: [oracle('bad', () => [{ intensity: 'block', payload: blocking, details: [1] as never }])] }));
    expect(decision).toMatchObject({ decided_by: 'failure_policy', error: { message: expect.stringContaining('"details" must be a JSON object') } });
  });
});
