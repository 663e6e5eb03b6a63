/**
 * Who approves a plan this agent submits (docs/spec/teams.md#plan-approval: a teammate's plan goes to its lead), and how
 * the two-approver route settles. The lead's agent id comes from `ClientOptions.lead`, else from
 * the gateway's `welcome` (`agent.lead`).
 */
import type { AgentIdentity, RequestTarget } from '@ahp/protocol/wire';
import { AhpClientError } from './errors.js';
import type { Logger } from './logger.js';
import type { RequestDecision } from './team.js';

/**
 * `lead`: the team's lead decides (docs/spec/teams.md#plan-approval). `operators`: any operator, in the
 * console. `both`: one request to each; the plan is approved only when both approve, and the first
 * refusal (or expiry) decides — the other request is then cancelled.
 */
export type PlanApprover = 'lead' | 'operators' | 'both';

/** The suffix of the operators' request id on the `both` route: `<requestId>.operators`. */
export const OPERATORS_REQUEST_SUFFIX = '.operators';

/**
 * The targets of a plan approval: `target` when given (an agent id or a target, as before),
 * else per `approver`, which defaults to the lead when this agent has one (`lead` set and not
 * itself) and to the operators otherwise. Throws `E_INVALID_FRAME` for a lead route without a lead.
 */
export function planApprovalTargets(
  choice: { readonly approver?: PlanApprover | undefined; readonly target?: string | RequestTarget | undefined },
  context: { readonly lead: string | undefined; readonly self: AgentIdentity | undefined },
): RequestTarget[] {
  if (choice.target !== undefined) return [typeof choice.target === 'string' ? { kind: 'agent', agent: choice.target } : choice.target];
  const lead = context.lead !== undefined && context.lead !== context.self?.id ? context.lead : undefined;
  const approver = choice.approver ?? (lead === undefined ? 'operators' : 'lead');
  if (approver === 'operators') return [{ kind: 'operators' }];
  if (lead === undefined) {
    throw new AhpClientError(
      'E_INVALID_FRAME',
      `approver "${approver}" needs the lead's agent id: set ClientOptions.lead (the welcome does not name the lead)${context.lead !== undefined ? '; this agent is the lead itself' : ''}`,
      { details: { approver } },
    );
  }
  const toLead: RequestTarget = { kind: 'agent', agent: lead };
  return approver === 'lead' ? [toLead] : [toLead, { kind: 'operators' }];
}

/**
 * Settles the `both` route: resolves with the last approval once every part approved (carrying
 * all parts), or with the first part that did not approve, after asking `cancel` to withdraw the
 * parts still pending (a failed cancel is logged: that request then settles on its own). Rejects
 * when a part's wait fails (the client closed), after trying to cancel the others the same way.
 */
export function allMustApprove(
  parts: readonly { readonly requestId: string; readonly decision: Promise<RequestDecision> }[],
  cancel: (requestId: string) => Promise<unknown>,
  logger: Logger,
): Promise<RequestDecision> {
  return new Promise<RequestDecision>((resolve, reject) => {
    const decided = new Map<string, RequestDecision>();
    let over = false;
    const withdrawOthers = async (except: string): Promise<void> => {
      await Promise.all(
        parts
          .filter((part) => part.requestId !== except && !decided.has(part.requestId))
          .map((part) =>
            cancel(part.requestId).catch((error: unknown) =>
              logger.warn({ requestId: part.requestId, error: String(error) }, 'could not withdraw the other plan approval; it settles on its own'),
            ),
          ),
      );
    };
    for (const part of parts) {
      part.decision.then(
        (decision) => {
          decided.set(part.requestId, decision);
          if (over) return;
          if (!decision.approved) {
            over = true;
            void withdrawOthers(part.requestId).then(() => resolve({ ...decision, parts: parts.flatMap((p) => decided.get(p.requestId) ?? []) }));
          } else if (decided.size === parts.length) {
            over = true;
            resolve({ ...decision, parts: parts.flatMap((p) => decided.get(p.requestId) ?? []) });
          }
        },
        (error: unknown) => {
          if (over) return;
          over = true;
          void withdrawOthers(part.requestId).then(() => reject(error));
        },
      );
    }
  });
}
