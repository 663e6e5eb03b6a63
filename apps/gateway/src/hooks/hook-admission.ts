/**
 * The refusals of the two admission checks the open-hook script makes besides the rate limit and
 * the pending-plan gate: a plan that must be approved first (docs/spec/teams.md#plan-gate) and block/control signals
 * the session left unanswered past their grace (docs/spec/spectrum-and-signals.md#unanswered-signals). Pure: the gateway sends the
 * error over the socket, the Claude Code endpoint turns it into a fail-closed decision.
 */
import { makeError, type AhpError } from '@ahp/protocol';
import type { OpenHookOutcome } from '@ahp/store';

type PlanRequired = Extract<OpenHookOutcome, { kind: 'plan_required' }>;
type Unanswered = Extract<OpenHookOutcome, { kind: 'unanswered' }>;

/**
 * `E_PLAN_REQUIRED`: what closed the gate (the rejected or expired plan, or the team's
 * requirement), what to do, and which tools stay open meanwhile.
 */
export function planRequiredError(outcome: PlanRequired, planningTools: readonly string[]): AhpError {
  const why =
    outcome.status === 'none'
      ? "this agent's team requires an approved plan before tool calls"
      : `plan approval ${outcome.requestId ?? ''} was ${outcome.status}`;
  return makeError('E_PLAN_REQUIRED', `${why}; submit a (revised) plan and wait for its approval`, {
    status: outcome.status,
    ...(outcome.requestId === undefined ? {} : { request_id: outcome.requestId }),
    planning_tools: [...planningTools],
  });
}

/** `E_SIGNAL_UNANSWERED`: the overdue signals, which the agent answers with `signal_response` to go on. */
export function unansweredError(outcome: Unanswered): AhpError {
  return makeError(
    'E_SIGNAL_UNANSWERED',
    `answer ${outcome.signalIds.length === 1 ? 'signal' : 'signals'} ${outcome.signalIds.join(', ')} (block or control signals must be answered) before further hooks of this agent (in any session: a new session does not lift the hold)`,
    { signal_ids: [...outcome.signalIds] },
  );
}
