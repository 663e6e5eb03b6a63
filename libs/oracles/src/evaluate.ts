/**
 * Evaluating one hook: run its oracles in order, each under a time budget, turn their verdicts
 * into validated signals and fold those into the decision the agent receives.
 */
import {
  ApprovalRequirementSchema,
  HookDecisionSchema,
  parseOnce,
  IntensitySchema,
  SignalPayloadSchema,
  SignalSchema,
  TRIGGERS,
  aggregateSignals,
  approvalRequirementOf,
  defaultFailurePolicy,
  describeIssues,
  failurePolicyDecision,
  intensityForLevel,
  isIntensityAllowed,
} from '@ahp/protocol';
import type { ErrorCode, FailurePolicy, HookDecision, JsonObject, Signal } from '@ahp/protocol';
import { describeValue, oracleAppliesTo } from './oracle.js';
import type { Oracle, OracleInput } from './oracle.js';
import type { RuleCounters } from './rules/counters.js';
import { MissingContextError } from './rules/missing-context.js';

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
  /** True when the oracle failed and its own `fail_open` policy skipped it (the other oracles decided). */
  readonly skipped?: boolean;
}

/** Settings of one oracle that differ from the hook's (hooks.yaml `budget_ms` and `failure_policy` on an oracle). */
export interface OracleSettings {
  /** Time this oracle gets, in milliseconds; default: {@link EvaluateHookOptions.budgetMs}. */
  readonly budgetMs?: number;
  /**
   * What a failure of this oracle decides. `fail_closed`: the hook is denied by failure policy,
   * whatever the hook's policy. `fail_open`: the oracle is skipped and the others go on; the
   * decision records the skip in `error`. Default: the hook's policy, with the hook's semantics
   * (the first failure decides the whole hook).
   */
  readonly failurePolicy?: FailurePolicy;
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
  /** Handed to every oracle as `ctx.counters` (progressive intervention, circuit breakers). */
  readonly counters?: RuleCounters;
  /** Per-oracle budget and failure policy; `undefined` for an oracle means the hook's. */
  readonly oracleSettings?: (oracle: Oracle) => OracleSettings | undefined;
  /**
   * The caller hands `input` over: nobody else holds it (a worker's freshly parsed job data), so
   * it is frozen where it is instead of deep-copied first. Either way oracles see one read-only
   * view; the copy is the costly half (about 5 % of a worker's CPU in the benchmark's profile).
   * @defaultValue false: the input is copied, and the caller's objects stay as they were
   */
  readonly inputIsOwned?: boolean;
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
 *   reason and resolution path with a generic failure-policy answer. A block that asks for a
 *   person's approval (`OracleVerdict.approval`) is the exception: the evaluation goes on, since
 *   the call may still be approved and the other oracles' answers then apply.
 * - The first oracle failure (throw, rejection, timeout, output that is not a list of valid
 *   verdicts, a verdict with an intensity the trigger does not allow) ends the evaluation: the
 *   failure policy decides, `decided_by: 'failure_policy'`, with `E_TIMEOUT` for timeouts and
 *   `E_INTERNAL` for everything else. Signals gathered before the failure are dropped, since
 *   a failure-policy decision carries none. The policy is the oracle's own when
 *   `oracleSettings` gives one, else the hook's.
 * - An oracle whose own policy is `fail_open` is skipped instead, and the others go on. If the
 *   others produce signals, they decide (`decided_by: 'oracles'`) and `error` names the skipped
 *   oracle; if they produce none, the allow is the policy's (`decided_by: 'failure_policy'`).
 * - Otherwise the signals are folded with `aggregateSignals` (strongest intensity wins,
 *   conflicting modifications resolved to the stricter one, warnings collected).
 */
export async function evaluateHook(options: EvaluateHookOptions): Promise<HookDecision> {
  if (!Number.isFinite(options.budgetMs) || options.budgetMs <= 0) {
    throw new RangeError(`evaluateHook: budgetMs must be a positive number of milliseconds, got ${options.budgetMs}`);
  }
  const { trigger, hookId } = options.input;
  const policy = options.failurePolicy ?? defaultFailurePolicy(trigger);
  const input = options.inputIsOwned === true ? deepFreeze(pickInput(options.input)) : deepFreeze(structuredClone(pickInput(options.input)));
  const signals: Signal[] = [];

  const fail = (code: ErrorCode, message: string, decidingPolicy: FailurePolicy = policy): HookDecision =>
    failurePolicyDecision({
      hookId,
      trigger,
      policy: decidingPolicy,
      code,
      message: `${message}; failure policy ${decidingPolicy} decided`,
      now: options.now().toISOString(),
      ...(options.configVersion === undefined ? {} : { configVersion: options.configVersion }),
    });
  const skipped: { code: ErrorCode; message: string }[] = [];

  for (const oracle of options.oracles) {
    if (!oracleAppliesTo(oracle, trigger)) continue;
    const settings = options.oracleSettings?.(oracle);
    const budgetMs = budgetFor(options, settings?.budgetMs ?? options.budgetMs);
    const run = budgetMs <= 0 ? ({ kind: 'timeout', durationMs: 0 } as const) : await runOracle(oracle, input, budgetMs, options);
    const skip = settings?.failurePolicy === 'fail_open';

    let failure: { code: ErrorCode; message: string; report: OracleRunReport } | undefined;
    if (run.kind === 'timeout') {
      const message =
        budgetMs <= 0
          ? `the hook's deadline passed before oracle "${oracle.name}" could run`
          : `oracle "${oracle.name}" did not answer within ${budgetMs} ms`;
      failure = {
        code: 'E_TIMEOUT',
        message,
        report: { oracle: oracle.name, outcome: 'timeout', durationMs: run.durationMs, signals: 0, message },
      };
    } else if (run.kind === 'threw') {
      // A rule that could not read the context it needs says which fields: the agent can fix that.
      const missing = run.error instanceof MissingContextError ? run.error : undefined;
      failure = {
        code: missing === undefined ? 'E_INTERNAL' : missing.code,
        message: missing === undefined ? `oracle "${oracle.name}" failed with an error` : missing.message,
        report: {
          oracle: oracle.name,
          outcome: 'threw',
          durationMs: run.durationMs,
          signals: 0,
          message: errorMessage(run.error),
          error: run.error,
        },
      };
    } else {
      const built = buildSignals(oracle, run.value, options);
      if (built.ok) {
        settle(options, { oracle: oracle.name, outcome: 'answered', durationMs: run.durationMs, signals: built.signals.length });
        signals.push(...built.signals);
        // A block is final, except one that asks for approval: see OracleVerdict.approval.
        if (built.signals.some((s) => s.header.intensity === 'block' && approvalRequirementOf(s) === undefined)) break;
        continue;
      }
      const message = `oracle "${oracle.name}" returned an invalid answer: ${built.problem}`;
      failure = {
        code: 'E_INTERNAL',
        message,
        report: { oracle: oracle.name, outcome: 'invalid', durationMs: run.durationMs, signals: 0, message },
      };
    }
    settle(options, skip ? { ...failure.report, skipped: true } : failure.report);
    if (!skip) return fail(failure.code, failure.message, settings?.failurePolicy ?? policy);
    skipped.push({ code: failure.code, message: `${failure.message}; its failure policy fail_open skipped it` });
  }

  const now = options.now().toISOString();
  const version = options.configVersion === undefined ? {} : { configVersion: options.configVersion };
  const first = skipped[0];
  if (first !== undefined && signals.length === 0) {
    return failurePolicyDecision({ hookId, trigger, policy: 'fail_open', code: first.code, message: joinSkipped(skipped), now, ...version });
  }
  const aggregated = aggregateSignals({ hookId, trigger, signals, now, newId: options.newId, ...version });
  const decision = first === undefined ? aggregated : { ...aggregated, error: { code: first.code, message: joinSkipped(skipped) } };
  // Parsed once here: the hook store takes this very object without parsing it again (parseOnce).
  const checked = parseOnce(HookDecisionSchema, decision);
  if (!checked.success) {
    return fail('E_INTERNAL', `the aggregated decision is invalid: ${describeIssues(checked.error.issues, { max: 3 })}`);
  }
  return checked.data;
}

function joinSkipped(skipped: readonly { message: string }[]): string {
  const text = skipped.map((s) => s.message).join('; ');
  return text.length > 4000 ? `${text.slice(0, 3999)}…` : text;
}

function budgetFor(options: EvaluateHookOptions, budgetMs: number): number {
  if (options.deadlineAt === undefined) return budgetMs;
  return Math.min(budgetMs, options.deadlineAt - options.now().getTime());
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
function runOracle(oracle: Oracle, input: OracleInput, budgetMs: number, options: EvaluateHookOptions): Promise<RunResult> {
  // Made on the first read of `ctx.signal`: most oracles (the rules among them) never read it, and
  // an AbortSignal per oracle per hook was 1-3 % of a worker's CPU.
  let controller: AbortController | undefined;
  let abortReason: DOMException | undefined;
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
      abortReason = new DOMException(`oracle "${oracle.name}" exceeded its ${budgetMs} ms budget`, 'TimeoutError');
      controller?.abort(abortReason);
    }, budgetMs);
    const answered = (value: unknown) =>
      finish(elapsed() > budgetMs ? { kind: 'timeout', durationMs: elapsed() } : { kind: 'answered', value, durationMs: elapsed() });
    const threw = (error: unknown) =>
      finish(elapsed() > budgetMs ? { kind: 'timeout', durationMs: elapsed() } : { kind: 'threw', error, durationMs: elapsed() });
    try {
      const ctx = {
        get signal(): AbortSignal {
          if (controller === undefined) {
            controller = new AbortController();
            // Read only after the budget ran out: the signal is already aborted.
            if (abortReason !== undefined) controller.abort(abortReason);
          }
          return controller.signal;
        },
        ...(options.counters === undefined ? {} : { counters: options.counters }),
        ...(options.deadlineAt === undefined ? {} : { deadlineAt: options.deadlineAt }),
        ...(options.configVersion === undefined ? {} : { configVersion: options.configVersion }),
      };
      Promise.resolve(oracle.evaluate(input, ctx)).then(answered, threw);
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
      return { ok: false, problem: `${at}: invalid payload: ${describeIssues(payload.error.issues, { prefix: ['payload'], max: 3 })}` };
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
    const details = fields['details'];
    if (details !== undefined && (typeof details !== 'object' || details === null || Array.isArray(details))) {
      return { ok: false, problem: `${at}: "details" must be a JSON object` };
    }
    const context: JsonObject = { oracle: oracle.name, trigger };
    if (rule !== undefined) context['rule'] = rule;
    if (options.configVersion !== undefined) context['config_version'] = options.configVersion;
    if (details !== undefined) context['details'] = details as JsonObject;
    if (fields['approval'] !== undefined) {
      const approval = ApprovalRequirementSchema.safeParse(fields['approval']);
      if (!approval.success) return { ok: false, problem: `${at}: "approval" must be { deadline_ms: positive integer, on_expiry: reject | approve }` };
      if (trigger !== 'pre-tool-use' || intensity.data !== 'block') {
        return { ok: false, problem: `${at}: "approval" is only for a block at pre-tool-use (a person approves a tool call)` };
      }
      context['approval'] = approval.data;
    }
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
    if (!signal.success) return { ok: false, problem: `${at}: ${describeIssues(signal.error.issues, { max: 3 })}` };
    signals.push(signal.data);
  }
  return { ok: true, signals };
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return `non-Error value thrown: ${describeValue(error)}`;
}

/** The fields oracles see, in a new top-level object (extra properties of the caller's object stay out). */
function pickInput(input: OracleInput): OracleInput {
  return { hookId: input.hookId, trigger: input.trigger, context: input.context, agent: input.agent, sessionId: input.sessionId };
}

/** Freezes `value` and every object under it, so oracles share one read-only view. */
function deepFreeze<T extends object>(value: T): T {
  const stack: object[] = [value];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (Object.isFrozen(next)) continue;
    Object.freeze(next);
    for (const child of Object.values(next)) {
      if (typeof child === 'object' && child !== null) stack.push(child);
    }
  }
  return value;
}
