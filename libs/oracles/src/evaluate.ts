/**
 * Evaluating one hook: run its oracles in order, each under a time budget, turn their verdicts
 * into validated signals and fold those into the decision the agent receives.
 */
import {
  HookDecisionSchema,
  IntensitySchema,
  SignalPayloadSchema,
  SignalSchema,
  TRIGGERS,
  aggregateSignals,
  defaultFailurePolicy,
  failurePolicyDecision,
  intensityForLevel,
  isIntensityAllowed,
} from '@ahp/protocol';
import type { ErrorCode, FailurePolicy, HookDecision, JsonObject, Signal } from '@ahp/protocol';
import { describeValue, oracleAppliesTo } from './oracle.js';
import type { Oracle, OracleInput } from './oracle.js';

/** How one oracle's run ended, as reported to {@link EvaluateHookOptions.onOracleSettled}. */
export type OracleOutcome =
  /** It answered in time with valid verdicts (possibly none). */
  | 'answered'
  /** `evaluate` threw or its promise rejected. */
  | 'threw'
  /** It did not answer within its budget, or the hook's deadline left no time to run it. */
  | 'timeout'
  /** It answered in time, but with something that is not a list of valid verdicts for this trigger. */
  | 'invalid';

/** One oracle's run, for logs and metrics. */
export interface OracleRunReport {
  readonly oracle: string;
  readonly outcome: OracleOutcome;
  /** Wall-clock time spent waiting for the oracle, in milliseconds. */
  readonly durationMs: number;
  /** Signals the oracle contributed (0 unless `outcome` is `answered`). */
  readonly signals: number;
  /** What went wrong, for operators (it may name internals, so it is not sent to the agent verbatim). */
  readonly message?: string;
  /** The value `evaluate` threw, when `outcome` is `threw`. */
  readonly error?: unknown;
}

/** Options of {@link evaluateHook}. */
export interface EvaluateHookOptions {
  readonly input: OracleInput;
  /** In configuration order; oracles whose `triggers` exclude the hook's trigger are skipped. */
  readonly oracles: readonly Oracle[];
  /** The clock for signal timestamps, `decided_at` and the deadline; injected so tests control it. */
  readonly now: () => Date;
  /** Mints signal ids; must return a fresh UUID per call (e.g. `crypto.randomUUID`). */
  readonly newId: () => string;
  /** Time each oracle gets, in milliseconds (positive). */
  readonly budgetMs: number;
  /**
   * What to decide when an oracle fails.
   * @defaultValue the trigger's default: `fail_closed` for the `pre-*` gates, `fail_open` elsewhere
   */
  readonly failurePolicy?: FailurePolicy;
  /** The hooks configuration version the oracles embody; copied into the decision and into each signal's provenance. */
  readonly configVersion?: number;
  /**
   * Absolute deadline of the hook in epoch milliseconds (on the `now` clock). No oracle's budget
   * reaches past it: an answer after the deadline would arrive when the gateway has already
   * answered by failure policy.
   * @defaultValue no deadline; only `budgetMs` limits each oracle
   */
  readonly deadlineAt?: number;
  /** Called after each oracle run. It must not throw; if it does, the error is ignored so that logging cannot change a decision. */
  readonly onOracleSettled?: (report: OracleRunReport) => void;
}

/**
 * Evaluates one hook and returns its decision. Never rejects for anything an oracle does; rejects
 * only on invalid options (a programming error).
 *
 * - Oracles run one after another, in the given order, each under `min(budgetMs, time left
 *   until deadlineAt)`. When the budget runs out, the oracle's `AbortSignal` fires and its
 *   answer is abandoned.
 * - Each verdict becomes a signal: a new UUID, the verdict's type (or the trigger's typical
 *   signal type), the current time, `source` = oracle name, `correlation_id` = hook id, and a
 *   context recording where it came from: `{ oracle, trigger, rule?, config_version? }`. Every
 *   signal is checked against `SignalSchema`.
 * - A block is final: once an oracle blocks, later oracles are not consulted. Nothing they could
 *   answer would allow the operation, and a later oracle's failure must not replace a concrete
 *   reason and resolution path with a generic failure-policy answer.
 * - The first oracle failure (throw, rejection, timeout, output that is not a list of valid
 *   verdicts, a verdict with an intensity the trigger does not allow) ends the evaluation: the
 *   failure policy decides, `decided_by: 'failure_policy'`, with `E_TIMEOUT` for timeouts and
 *   `E_INTERNAL` for everything else. Signals gathered before the failure are dropped, since
 *   a failure-policy decision carries none.
 * - Otherwise the signals are folded with `aggregateSignals` (strongest intensity wins,
 *   modifications merged first-wins, warnings collected).
 */
export async function evaluateHook(options: EvaluateHookOptions): Promise<HookDecision> {
  if (!Number.isFinite(options.budgetMs) || options.budgetMs <= 0) {
    throw new RangeError(`evaluateHook: budgetMs must be a positive number of milliseconds, got ${options.budgetMs}`);
  }
  const { trigger, hookId } = options.input;
  const policy = options.failurePolicy ?? defaultFailurePolicy(trigger);
  const input = frozenCopy(options.input);
  const signals: Signal[] = [];

  const fail = (code: ErrorCode, message: string): HookDecision =>
    failurePolicyDecision({
      hookId,
      trigger,
      policy,
      code,
      message: `${message}; failure policy ${policy} decided`,
      now: options.now().toISOString(),
      ...(options.configVersion === undefined ? {} : { configVersion: options.configVersion }),
    });

  for (const oracle of options.oracles) {
    if (!oracleAppliesTo(oracle, trigger)) continue;
    const budgetMs = budgetFor(options);
    const run = budgetMs <= 0 ? ({ kind: 'timeout', durationMs: 0 } as const) : await runOracle(oracle, input, budgetMs);

    if (run.kind === 'timeout') {
      const message =
        budgetMs <= 0
          ? `the hook's deadline passed before oracle "${oracle.name}" could run`
          : `oracle "${oracle.name}" did not answer within ${budgetMs} ms`;
      settle(options, { oracle: oracle.name, outcome: 'timeout', durationMs: run.durationMs, signals: 0, message });
      return fail('E_TIMEOUT', message);
    }
    if (run.kind === 'threw') {
      settle(options, {
        oracle: oracle.name,
        outcome: 'threw',
        durationMs: run.durationMs,
        signals: 0,
        message: errorMessage(run.error),
        error: run.error,
      });
      return fail('E_INTERNAL', `oracle "${oracle.name}" failed with an error`);
    }
    const built = buildSignals(oracle, run.value, options);
    if (!built.ok) {
      const message = `oracle "${oracle.name}" returned an invalid answer: ${built.problem}`;
      settle(options, { oracle: oracle.name, outcome: 'invalid', durationMs: run.durationMs, signals: 0, message });
      return fail('E_INTERNAL', message);
    }
    settle(options, { oracle: oracle.name, outcome: 'answered', durationMs: run.durationMs, signals: built.signals.length });
    signals.push(...built.signals);
    if (built.signals.some((s) => s.header.intensity === 'block')) break;
  }

  const decision = aggregateSignals({
    hookId,
    trigger,
    signals,
    now: options.now().toISOString(),
    ...(options.configVersion === undefined ? {} : { configVersion: options.configVersion }),
  });
  const checked = HookDecisionSchema.safeParse(decision);
  if (!checked.success) {
    return fail('E_INTERNAL', `the aggregated decision is invalid: ${formatIssues(checked.error.issues)}`);
  }
  return checked.data;
}

function budgetFor(options: EvaluateHookOptions): number {
  if (options.deadlineAt === undefined) return options.budgetMs;
  return Math.min(options.budgetMs, options.deadlineAt - options.now().getTime());
}

function settle(options: EvaluateHookOptions, report: OracleRunReport): void {
  try {
    options.onOracleSettled?.(report);
  } catch {
    // An observer exists for logs and metrics; it must not be able to change a decision.
  }
}

type RunResult =
  | { kind: 'answered'; value: unknown; durationMs: number }
  | { kind: 'threw'; error: unknown; durationMs: number }
  | { kind: 'timeout'; durationMs: number };

/**
 * Runs one oracle with a budget. An answer that arrives after the budget counts as a timeout even
 * when the timer has not fired yet, which happens when a synchronous oracle hogs the event loop.
 */
function runOracle(oracle: Oracle, input: OracleInput, budgetMs: number): Promise<RunResult> {
  const controller = new AbortController();
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise<RunResult>((resolve) => {
    let settled = false;
    const finish = (result: RunResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const timer = setTimeout(() => {
      finish({ kind: 'timeout', durationMs: elapsed() });
      controller.abort(new DOMException(`oracle "${oracle.name}" exceeded its ${budgetMs} ms budget`, 'TimeoutError'));
    }, budgetMs);
    const answered = (value: unknown) =>
      finish(elapsed() > budgetMs ? { kind: 'timeout', durationMs: elapsed() } : { kind: 'answered', value, durationMs: elapsed() });
    const threw = (error: unknown) =>
      finish(elapsed() > budgetMs ? { kind: 'timeout', durationMs: elapsed() } : { kind: 'threw', error, durationMs: elapsed() });
    try {
      Promise.resolve(oracle.evaluate(input, { signal: controller.signal })).then(answered, threw);
    } catch (error) {
      threw(error);
    }
  });
}

type BuildResult = { ok: true; signals: Signal[] } | { ok: false; problem: string };

function buildSignals(oracle: Oracle, answer: unknown, options: EvaluateHookOptions): BuildResult {
  const { trigger, hookId } = options.input;
  if (!Array.isArray(answer)) return { ok: false, problem: `expected an array of verdicts, got ${describeValue(answer)}` };
  const signals: Signal[] = [];
  for (const [index, verdict] of (answer as unknown[]).entries()) {
    const at = `verdict ${index}`;
    if (typeof verdict !== 'object' || verdict === null || Array.isArray(verdict)) {
      return { ok: false, problem: `${at}: expected an object, got ${describeValue(verdict)}` };
    }
    const fields = verdict as Record<string, unknown>;
    const intensity = IntensitySchema.safeParse(fields['intensity']);
    if (!intensity.success) {
      return { ok: false, problem: `${at}: "intensity" must be one of block, control, prompt, aid` };
    }
    if (!isIntensityAllowed(trigger, intensity.data)) {
      return {
        ok: false,
        problem: `${at}: intensity "${intensity.data}" is not allowed at ${trigger} (allowed: ${TRIGGERS[trigger].allowed.join(', ')})`,
      };
    }
    const payload = SignalPayloadSchema.safeParse(fields['payload']);
    if (!payload.success) {
      return { ok: false, problem: `${at}: invalid payload: ${formatIssues(payload.error.issues, ['payload'])}` };
    }
    if (intensityForLevel(payload.data.level) !== intensity.data) {
      return {
        ok: false,
        problem: `${at}: payload level "${payload.data.level}" does not match intensity "${intensity.data}"`,
      };
    }
    const type = fields['type'] ?? TRIGGERS[trigger].typicalSignal;
    const rule = fields['rule'];
    if (rule !== undefined && (typeof rule !== 'string' || rule.length === 0 || rule.length > 256)) {
      return { ok: false, problem: `${at}: "rule" must be a string of 1 to 256 characters` };
    }
    const context: JsonObject = { oracle: oracle.name, trigger };
    if (rule !== undefined) context['rule'] = rule;
    if (options.configVersion !== undefined) context['config_version'] = options.configVersion;
    const signal = SignalSchema.safeParse({
      header: {
        id: options.newId(),
        type,
        timestamp: options.now().toISOString(),
        source: oracle.name,
        intensity: intensity.data,
        correlation_id: hookId,
      },
      context,
      payload: payload.data,
    });
    if (!signal.success) return { ok: false, problem: `${at}: ${formatIssues(signal.error.issues)}` };
    signals.push(signal.data);
  }
  return { ok: true, signals };
}

interface IssueLike {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** The first few schema issues as one line: `header.type: must be lowercase kebab-case; …`. */
function formatIssues(issues: readonly IssueLike[], prefix: readonly PropertyKey[] = []): string {
  const shown = issues.slice(0, 3).map((issue) => {
    const path = [...prefix, ...issue.path].map(String).join('.');
    return path === '' ? issue.message : `${path}: ${issue.message}`;
  });
  return issues.length > 3 ? `${shown.join('; ')} (and ${issues.length - 3} more)` : shown.join('; ');
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return `non-Error value thrown: ${describeValue(error)}`;
}

/** A deep copy of the input with every object frozen, so oracles share one read-only view. */
function frozenCopy(input: OracleInput): OracleInput {
  const copy = structuredClone({
    hookId: input.hookId,
    trigger: input.trigger,
    context: input.context,
    agent: input.agent,
    sessionId: input.sessionId,
  });
  const stack: object[] = [copy];
  for (let value = stack.pop(); value !== undefined; value = stack.pop()) {
    Object.freeze(value);
    for (const child of Object.values(value)) {
      if (typeof child === 'object' && child !== null) stack.push(child);
    }
  }
  return copy;
}
