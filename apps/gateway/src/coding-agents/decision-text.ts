/**
 * A {@link HookDecision} read the way every coding agent's answer needs it — block (with its
 * reason), modify (with the changes), or let pass (with warnings, advice and whether an operator
 * approved the call) — and the one-line texts those answers carry. Shared by the dialects
 * (Claude Code, Codex) and the MCP gateway, so an agent reads the same words whichever way it
 * reached AHP. Pure.
 */
import { APPROVAL_SIGNAL_TYPES, awaitingApproval } from '@ahp/protocol';
import type { AwaitingApproval, HookDecision, JsonObject, Modification } from '@ahp/protocol';

/**
 * What the agent reads when its call waits for an operator (a rule's `require_approval`) and its
 * hook is not held for the decision (a pre-tool hook; a permission prompt only when holding is
 * off or full, see PermissionHold): the call is denied for now, with the instruction to send
 * exactly the same call again once it is approved. The retry finds the request by the call's
 * digest (docs/claude-code.md).
 */
export function approvalWaitReason(waiting: AwaitingApproval): string {
  const why = waiting.signal.payload.level === 'blocking' ? waiting.signal.payload.reason.replace(/\s*Waiting for an operator's decision.*$/s, '').replace(/[.\s]+$/, '') : '';
  return (
    `AHP: this call waits for an operator's approval (request ${waiting.request_id}, until ${waiting.deadline})` +
    `${why === '' ? '' : `: ${why}`}. Do not work around it. Once an operator has approved it, retry exactly the same call ` +
    '(same tool, same input); a changed call needs a new approval. If it is rejected or expires, the retry is denied with the reason.'
  );
}

/** Why the decision blocks, in one line for the model and the user (the MCP gateway's tool errors say the same). */
export function blockReason(decision: HookDecision): string {
  if (decision.decided_by === 'failure_policy') {
    const cause = decision.error === undefined ? '' : `: ${decision.error.message} (${decision.error.code})`;
    return `Blocked by AHP (fail-closed)${cause}`;
  }
  const reasons = decision.signals.flatMap((signal) => {
    if (signal.payload.level !== 'blocking') return [];
    const steps = signal.payload.resolution_path.length > 0 ? ` To resolve: ${signal.payload.resolution_path.join('; ')}.` : '';
    return [`${signal.payload.reason}${steps}`];
  });
  return `Blocked by AHP: ${reasons.join(' ') || 'an oracle denied this operation'}`;
}

/** Warnings (prompt) and suggestions (aid) as text for the model's context. */
export function advice(decision: HookDecision): string | undefined {
  const lines = decision.warnings.map((warning) => `AHP warning: ${warning}`);
  for (const signal of decision.signals) {
    if (signal.payload.level === 'prompting') lines.push(...signal.payload.suggestions.map((suggestion) => `AHP suggestion: ${suggestion}`));
    if (signal.payload.level !== 'aiding') continue;
    if (signal.payload.context !== '') lines.push(`AHP: ${signal.payload.context}`);
    lines.push(...signal.payload.suggestions.map((suggestion) => `AHP suggestion (${suggestion.type}): ${suggestion.description}`));
  }
  return lines.length > 0 ? lines.join('\n') : undefined;
}

/** The warnings for the user (an agent's `systemMessage`), or undefined when there are none. */
export function warningText(decision: HookDecision): string | undefined {
  return decision.warnings.length > 0 ? decision.warnings.map((warning) => `AHP: ${warning}`).join('\n') : undefined;
}

/** The changes of a control decision in one line (`command: why; options.timeout: why`). */
export function modificationSummary(modifications: readonly Modification[]): string {
  return modifications.map((m) => `${m.target}: ${m.reason}`).join('; ');
}

/** Why a decision that changes an operation the agent's hook cannot change is a block (fail closed rather than let it through unchanged). */
export function unappliedModificationReason(agent: string, event: string, modifications: readonly Modification[]): string {
  const what = event === 'UserPromptSubmit' || event === 'userPromptSubmitted' ? 'prompt' : 'event';
  return `Blocked by AHP: a rule changes this ${what} (${modificationSummary(modifications)}), which a ${agent} ${event} hook cannot do; it is refused rather than let through unchanged.`;
}

/** Longest rendering of an adjusted input in {@link adjustedCallReason}; the rest is cut with a marker. */
export const MAX_ADJUSTED_INPUT_CHARS = 2_000;

/**
 * Why a call a rule adjusts is denied where the agent cannot be handed the adjusted input without
 * also being granted it (a permission prompt, a pre-tool hook without an "ask" that carries a
 * changed input): the change, and the adjusted input to send instead. The call sent again as
 * adjusted has nothing left to rewrite, so it goes through the agent's own permission flow like
 * any other call. A rule's rewrite is a control, never a permission for the whole call.
 */
export function adjustedCallReason(adjusted: JsonObject, modifications: readonly Modification[]): string {
  const json = JSON.stringify(adjusted);
  const shown = json.length > MAX_ADJUSTED_INPUT_CHARS ? `${json.slice(0, MAX_ADJUSTED_INPUT_CHARS)}… [cut: ${json.length} characters in all]` : json;
  return (
    `Blocked by AHP: a rule adjusts this call (${modificationSummary(modifications)}); it does not run as sent. ` +
    `Issue it again as adjusted — the same tool with this input: ${shown}`
  );
}

/**
 * Whether an operator allowed exactly this call (`approval-approved`, with or without an edit) or
 * granted such calls for the session (`approval-granted`): the only decisions an agent's
 * permission prompt may read as "allow". A failure-policy decision never carries one.
 */
export function operatorApproved(decision: HookDecision): boolean {
  const byOperator: readonly string[] = [APPROVAL_SIGNAL_TYPES.approved, APPROVAL_SIGNAL_TYPES.granted];
  return decision.allowed && decision.decided_by !== 'failure_policy' && decision.signals.some((signal) => byOperator.includes(signal.header.type));
}

/** A decision as every coding agent's answer reads it (see the module comment). */
export type HookVerdict =
  | { readonly kind: 'block'; readonly reason: string }
  | { readonly kind: 'modify'; readonly modifications: readonly Modification[]; readonly approved: boolean }
  | { readonly kind: 'pass'; readonly warnings: string | undefined; readonly advice: string | undefined; readonly approved: boolean };

/**
 * The verdict of `decision`: a block carries the oracles' reason (or the failure policy's cause,
 * or the wait for an operator's approval); an allow with modifications is a `modify`; any other
 * allow passes. `approved` ({@link operatorApproved}) is the one case where an agent's own
 * permission prompt may be answered "allow" — having no objection never is a permission, and
 * neither is a rule's rewrite: a `modify` without it is a control on a call nobody allowed.
 */
export function verdictOf(decision: HookDecision): HookVerdict {
  if (!decision.allowed) {
    const waiting = awaitingApproval(decision);
    return { kind: 'block', reason: waiting === undefined ? blockReason(decision) : approvalWaitReason(waiting) };
  }
  const approved = operatorApproved(decision);
  if (decision.modifications.length > 0) return { kind: 'modify', modifications: decision.modifications, approved };
  return { kind: 'pass', warnings: warningText(decision), advice: advice(decision), approved };
}
