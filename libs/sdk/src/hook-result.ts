/**
 * A wire decision turned into what an agent acts on: `allowed`, or a `block` flattened from the
 * first blocking signal (or from the failure policy when no oracle answered).
 */
import { awaitingApproval } from '@ahp/protocol/wire';
import type { BlockingDecision, DecidedBy, HookDecision, HookDecisionError, HookTrigger, Intensity, Modification, Signal } from '@ahp/protocol/wire';

/** Why a hook was blocked, flattened from the first blocking signal (or from the failure policy). */
export interface HookBlock {
  /** For people and for the model: why the operation is denied. */
  readonly reason: string;
  /** Whether the agent can lift the block itself by following `resolutionPath`. */
  readonly resolvable: boolean;
  /** Steps that would lift the block; empty when there are none. */
  readonly resolutionPath: readonly string[];
  /** The oracle that blocked, or `failure_policy` when no oracle answered and the hook fails closed. */
  readonly source: string;
  /** The blocking signal (absent for a failure-policy block); answer it with `respond()`. */
  readonly signal?: Signal;
  /** Set when the block waits for a person's decision on a tool approval (see `HookOptions.waitForApproval`). */
  readonly awaitingApproval?: { readonly requestId: string; readonly deadline: string };
}

interface HookResultBase {
  readonly hookId: string;
  readonly trigger: HookTrigger;
  /** The strongest intensity among the signals; `null` when no oracle intervened. */
  readonly intensity: Intensity | null;
  /** Every signal of the decision; answer each with `respond()`. */
  readonly signals: readonly Signal[];
  /** Parameter changes to apply before running the operation (from control signals). */
  readonly modifications: readonly Modification[];
  /** Messages of the prompt signals, in order. */
  readonly warnings: readonly string[];
  readonly decidedBy: DecidedBy;
  /** Why the failure policy decided (`decidedBy: 'failure_policy'`). */
  readonly error?: HookDecisionError;
  /** The decision as it came off the wire. */
  readonly decision: HookDecision;
}

/**
 * The decision for one hook, typed for use: `allowed` discriminates, and a blocked result always
 * carries `block` (`if (!result.allowed) console.log(result.block.reason)`).
 */
export type HookResult =
  | (HookResultBase & { readonly allowed: true; readonly block?: undefined })
  | (HookResultBase & { readonly allowed: false; readonly block: HookBlock });

function blockOf(decision: HookDecision): HookBlock {
  const waiting = awaitingApproval(decision);
  if (waiting !== undefined && waiting.signal.payload.level === 'blocking') return blockFromPayload(waiting.signal.payload, waiting.signal);
  for (const signal of decision.signals) {
    const payload = signal.payload;
    if (payload.level === 'blocking') return blockFromPayload(payload, signal);
  }
  // Blocked without a blocking signal: the failure policy failed closed.
  const error = decision.error;
  return {
    reason: error === undefined ? 'blocked' : error.message === '' ? error.code : error.message,
    resolvable: false,
    resolutionPath: [],
    source: 'failure_policy',
  };
}

function blockFromPayload(payload: BlockingDecision, signal: Signal): HookBlock {
  const resolution = payload.resolution;
  return {
    reason: payload.reason,
    resolvable: payload.resolvable,
    resolutionPath: payload.resolution_path,
    source: signal.header.source,
    signal,
    ...(resolution?.kind === 'await_approval' ? { awaitingApproval: { requestId: resolution.request_id, deadline: resolution.deadline } } : {}),
  };
}

/** Turns a wire decision into a {@link HookResult}. */
export function toHookResult(decision: HookDecision): HookResult {
  const base: HookResultBase = {
    hookId: decision.hook_id,
    trigger: decision.trigger,
    intensity: decision.intensity,
    signals: decision.signals,
    modifications: decision.modifications,
    warnings: decision.warnings,
    decidedBy: decision.decided_by,
    ...(decision.error === undefined ? {} : { error: decision.error }),
    decision,
  };
  return decision.allowed ? { ...base, allowed: true } : { ...base, allowed: false, block: blockOf(decision) };
}
