/**
 * The oracle plugin interface. Built-in oracles, the coming `hooks.yaml` rule engine and oracles
 * users write themselves all implement {@link Oracle}; the evaluator knows nothing else about them.
 */
import { HOOK_ORACLE_NAME_PATTERN, HOOK_TRIGGERS } from '@ahp/protocol';
import type { AgentIdentity, ApprovalRequirement, HookTrigger, Intensity, JsonObject, SignalPayload } from '@ahp/protocol';
import type { RuleCounters } from './rules/counters.js';

/**
 * What an oracle sees of one hook. The evaluator hands every oracle a deeply frozen copy, so one
 * oracle cannot change what the next one sees; an oracle that tries to mutate it throws, which
 * counts as an oracle failure.
 */
export interface OracleInput {
  /** The hook id (a UUID); it becomes the `correlation_id` of every signal. */
  readonly hookId: string;
  readonly trigger: HookTrigger;
  /** The context the agent sent with the hook, e.g. `{ tool: { name, input } }` at `pre-tool-use`. */
  readonly context: Readonly<JsonObject>;
  /** The authenticated agent, taken from its token by the gateway (never from the frame). */
  readonly agent: Readonly<AgentIdentity>;
  readonly sessionId: string;
}

/** Per-call facilities of an evaluation. */
export interface OracleContext {
  /**
   * Aborted when the oracle's time budget runs out. The evaluator stops waiting at that moment
   * whatever the oracle does; passing the signal on to `fetch`, database clients or child
   * processes lets the oracle also stop the work it started.
   */
  readonly signal: AbortSignal;
  /**
   * Per-agent counters (progressive intervention, circuit breakers). Present
   * when the evaluation was given counters; the hooks.yaml engine always gives them. Calls are
   * asynchronous and may fail (Redis unreachable): a rejection is a failure of the oracle.
   */
  readonly counters?: RuleCounters;
  /** The hooks configuration version being evaluated, when there is one. */
  readonly configVersion?: number;
  /** The hook's deadline (epoch ms), when the evaluation has one: after it, nobody waits for the answer. */
  readonly deadlineAt?: number;
}

/**
 * One intervention an oracle asks for. The evaluator turns it into a full signal (header, context
 * with provenance, payload) and validates it.
 *
 * `intensity` and `payload.level` must name the same rung (`block` ↔ `blocking`, …), and the
 * intensity must be one the hook's trigger allows (docs/spec/hooks-and-oracles.md#triggers, `TRIGGERS` in the protocol);
 * anything else is an oracle failure, handled by the hook's failure policy.
 */
export interface OracleVerdict {
  readonly intensity: Intensity;
  /**
   * The signal type, lowercase kebab-case (e.g. `security-violation`).
   * @defaultValue the trigger's typical signal type, e.g. `permission-check` at `pre-tool-use`
   */
  readonly type?: string;
  readonly payload: SignalPayload;
  /** The rule inside the oracle that produced the verdict; recorded as `context.rule` of the signal. */
  readonly rule?: string;
  /**
   * More provenance, recorded as `context.details` of the signal (a JSON object): e.g. the
   * escalation step and violation count, the circuit breaker's code and count.
   */
  readonly details?: JsonObject;
  /**
   * The call needs a person's approval (hooks.yaml `require_approval`): only on a `block` verdict
   * at `pre-tool-use`. Recorded as `context.approval` of the signal; the worker opens the
   * `tool_approval` request and replaces the signal with the outcome. Unlike other blocks, such a
   * verdict does not stop the evaluation: a later oracle's own block makes asking moot, and its
   * control signals still apply once the call is approved.
   */
  readonly approval?: ApprovalRequirement;
}

/**
 * A hook oracle: looks at a hook's input and answers with zero or more verdicts. An empty answer
 * means "no intervention".
 *
 * Contract:
 * - `name` identifies the oracle in signals (`header.source`), logs and configuration; it must be
 *   unique among the oracles of a worker and match {@link ORACLE_NAME_PATTERN}.
 * - `triggers` lists the hooks the oracle answers; when absent it answers every trigger and must
 *   itself keep to the intensities each one allows.
 * - `evaluate` may be synchronous or asynchronous. It runs under a time budget: once
 *   `ctx.signal` aborts, its answer is ignored and the hook's failure policy decides. A throw, a
 *   rejected promise, a timeout and an invalid verdict are all failures of the oracle; none of them
 *   lets an operation through without the failure policy saying so.
 * - Only asynchronous work can be abandoned: a synchronous loop blocks the whole worker until it
 *   returns, budget or not.
 */
export interface Oracle {
  readonly name: string;
  readonly triggers?: readonly HookTrigger[];
  evaluate(input: OracleInput, ctx: OracleContext): Promise<readonly OracleVerdict[]> | readonly OracleVerdict[];
}

/** What an oracle name may look like: kebab-case words, optionally scoped with `/` or `:` (e.g. `acme/secret-scan`). */
export const ORACLE_NAME_PATTERN: RegExp = HOOK_ORACLE_NAME_PATTERN;

const MAX_ORACLE_NAME = 128;
const KNOWN_TRIGGERS: ReadonlySet<string> = new Set(HOOK_TRIGGERS);

/**
 * Why `value` is not a usable {@link Oracle}, or `undefined` when it is. Used on everything that
 * comes from outside the type system (plugin modules), so a broken plugin fails when the worker
 * starts rather than at its first hook.
 */
export function oracleShapeProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return `expected an object, got ${describeValue(value)}`;
  const candidate = value as Record<string, unknown>;
  const name = candidate['name'];
  if (typeof name !== 'string') return `"name" must be a string, got ${describeValue(name)}`;
  if (name.length > MAX_ORACLE_NAME || !ORACLE_NAME_PATTERN.test(name)) {
    return `"name" ${JSON.stringify(name.slice(0, MAX_ORACLE_NAME))} must be at most ${MAX_ORACLE_NAME} characters of lowercase letters, digits and . _ - (scopes separated by / or :)`;
  }
  if (typeof candidate['evaluate'] !== 'function') {
    return `oracle "${name}": "evaluate" must be a function, got ${describeValue(candidate['evaluate'])}`;
  }
  const triggers = candidate['triggers'];
  if (triggers !== undefined) {
    if (!Array.isArray(triggers)) return `oracle "${name}": "triggers" must be an array of hook triggers`;
    if (triggers.length === 0) {
      return `oracle "${name}": "triggers" is empty, so the oracle would never run; omit it to run on every trigger`;
    }
    const unknown = triggers.filter((t) => typeof t !== 'string' || !KNOWN_TRIGGERS.has(t));
    if (unknown.length > 0) {
      return `oracle "${name}": unknown trigger(s) ${unknown.map((t) => JSON.stringify(t)).join(', ')}; known: ${HOOK_TRIGGERS.join(', ')}`;
    }
  }
  return undefined;
}

/** Whether `oracle` answers hooks of `trigger`. */
export function oracleAppliesTo(oracle: Oracle, trigger: HookTrigger): boolean {
  return oracle.triggers === undefined || oracle.triggers.includes(trigger);
}

/** A short description of a value for error messages: its type, never its (possibly large) content. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return typeof value;
}
