/**
 * The one classification of what a hook decision does, shared by replay (config-replay.ts) and
 * shadow mode (config-shadow.ts) so the two can never disagree on what `allow→block` means: a
 * replay of a candidate and the same candidate shadowed over the same traffic report the same
 * hooks with the same transitions (e2e/system/config-replay-shadow.int.spec.ts).
 */
import { z } from 'zod';
import type { HookDecision } from './hook-decision.js';
import type { Signal } from './signal.js';
import { approvalRequirementOf } from './tool-approval.js';

/**
 * Outcomes, weakest first: `allow` (no intervention, or a failure policy that let the call
 * through), the decision's intensity, then `approval`, a block a rule holds for a person's
 * approval. `approval` ranks above `block` because it is a different outcome for the agent (a
 * person may let the call through), so turning a plain block into an approval is a change.
 */
export const DECISION_OUTCOMES = ['allow', 'aid', 'prompt', 'control', 'block', 'approval'] as const;
export type DecisionOutcome = (typeof DECISION_OUTCOMES)[number];

/** The enum schema of outcomes; each API gives it its own name (`ShadowOutcome`, `ReplayOutcome`). */
export const decisionOutcomeSchema = () => z.enum(DECISION_OUTCOMES);

/** Whether a signal of the decision asks a person to approve the call (a `require_approval` block). */
export function decisionNeedsApproval(decision: Pick<HookDecision, 'signals'>): boolean {
  return decision.signals.some((signal) => approvalRequirementOf(signal) !== undefined);
}

/**
 * The outcome from its two parts: the decision's intensity (`null` or `allow`: none) and whether a rule asks
 * for approval. Replay records keep the parts apart (their format predates the outcome), so both
 * the full-decision and the recorded form go through here.
 */
export function outcomeOfParts(intensity: HookDecision['intensity'] | 'allow' | undefined, approval: boolean): DecisionOutcome {
  return approval ? 'approval' : (intensity ?? 'allow');
}

/** The outcome of a decision as the oracles produced it (before any approval round). */
export function decisionOutcomeOf(decision: Pick<HookDecision, 'intensity' | 'signals'>): DecisionOutcome {
  return outcomeOfParts(decision.intensity, decisionNeedsApproval(decision));
}

/** Whether `a` intervenes more strongly than `b`. */
export function isStrongerOutcome(a: DecisionOutcome, b: DecisionOutcome): boolean {
  return DECISION_OUTCOMES.indexOf(a) > DECISION_OUTCOMES.indexOf(b);
}

/** A transition as both APIs spell it: `from→to`. */
export function transitionName(from: DecisionOutcome, to: DecisionOutcome): string {
  return `${from}→${to}`;
}

/** Longest rule name a replay report or a shadow counter carries. */
export const MAX_RULE_NAME_LENGTH = 256;

/**
 * The name of the rule a signal came from, as replay reports and shadow counters both give it:
 * `<oracle>/<rule id>` (the signal's `header.source` and `context.rule`), or the oracle alone when
 * it names no rule (a built-in or a plugin without rules); at most {@link MAX_RULE_NAME_LENGTH}
 * characters. One function, so that a rule replayed and the same rule shadowed carry one name.
 */
export function signalRuleName(signal: Pick<Signal, 'header' | 'context'>): string {
  const rule = signal.context['rule'];
  const name = typeof rule === 'string' && rule !== '' ? `${signal.header.source}/${rule}` : signal.header.source;
  return name.slice(0, MAX_RULE_NAME_LENGTH);
}
