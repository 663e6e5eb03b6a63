/**
 * Recovery time of a fault, from the ledger alone: the time from the fault until
 * - every affected hook in flight when it struck has settled at its agent — the hooks the
 *   worker was evaluating (worker faults), the hooks of the agents that lost their gateway or
 *   socket, every hook for a Redis restart — and
 * - a hook sent after it was decided by the oracles — for an agent-side fault, a hook of one of
 *   the affected agents — so the whole path works again,
 * whichever comes later. Faults follow each other closely, so a hook may be hit by the next fault
 * too; its recovery then counts against the earlier fault as well, which is what an agent sees.
 */
import { FAULT_KINDS, type FaultKind } from './fault-plan.js';
import type { FaultRecord } from './faults.js';
import type { HookRecord } from './hook-ledger.js';
import { distribution, type Distribution } from './stats.js';

/** The recovery of one fault. */
export interface FaultRecovery {
  readonly index: number;
  readonly kind: FaultKind;
  /** Affected hooks sent before the fault and not settled when it struck. */
  readonly inFlight: number;
  /** Milliseconds from the fault to recovery; null when the run ended first, or when not measured. */
  readonly recoveryMs: number | null;
  /** False when the fault hit only agents that send no hooks (the lead, planners): hooks cannot tell its recovery. */
  readonly measured: boolean;
}

/**
 * Recovery times of one fault kind; `unrecovered` counts faults the run ended before,
 * `unmeasured` those that hit no agent sending hooks.
 */
export type RecoveryDistribution = Distribution & { readonly unrecovered: number; readonly unmeasured: number };

/** See the module comment. `hooks` in the order they were sent. */
export function recoveryOf(fault: FaultRecord, hooks: readonly HookRecord[]): FaultRecovery {
  const at = fault.injectedAt;
  const agents = fault.affectedAgents === undefined ? undefined : new Set(fault.affectedAgents);
  if (agents !== undefined && !hooks.some((hook) => agents.has(hook.agent))) {
    return { index: fault.index, kind: fault.kind, inFlight: 0, recoveryMs: null, measured: false };
  }
  const affectedHooks = fault.affectedHooks === undefined ? undefined : new Set(fault.affectedHooks);
  const affected = (hook: HookRecord): boolean =>
    affectedHooks !== undefined ? affectedHooks.has(hook.hookId) : agents === undefined || agents.has(hook.agent);
  let inFlight = 0;
  let lastSettle = at;
  let unsettled = false;
  let firstOracleDecision: number | undefined;
  for (const hook of hooks) {
    const first = hook.settles[0];
    if (hook.sentAt <= at) {
      if ((first !== undefined && first.at <= at) || !affected(hook)) continue;
      inFlight += 1;
      if (first === undefined) unsettled = true;
      else lastSettle = Math.max(lastSettle, first.at);
    } else if (first?.kind === 'decision' && first.decidedBy === 'oracles' && (agents === undefined || agents.has(hook.agent))) {
      firstOracleDecision = Math.min(firstOracleDecision ?? first.at, first.at);
    }
  }
  const recoveryMs = unsettled || firstOracleDecision === undefined ? null : Math.max(lastSettle, firstOracleDecision) - at;
  return { index: fault.index, kind: fault.kind, inFlight, recoveryMs, measured: true };
}

/** Recovery times per fault kind (kinds never injected have count 0). */
export function recoveryByKind(recoveries: readonly FaultRecovery[]): Record<FaultKind, RecoveryDistribution> {
  const out = {} as Record<FaultKind, RecoveryDistribution>;
  for (const kind of FAULT_KINDS) {
    const ofKind = recoveries.filter((recovery) => recovery.kind === kind);
    const measured = ofKind.filter((recovery) => recovery.measured);
    const times = measured.flatMap((recovery) => (recovery.recoveryMs === null ? [] : [recovery.recoveryMs]));
    out[kind] = { ...distribution(times), unrecovered: measured.length - times.length, unmeasured: ofKind.length - measured.length };
  }
  return out;
}
