/**
 * Requests this agent opens or answers: plans for approval (to the lead, the operators or both),
 * interventions after a circuit breaker, shutdowns of teammates, and the answers and withdrawals
 * that settle them. The request state and the waiting live in the {@link TeamChannel}; this
 * module words the requests.
 */
import { CancelFrameSchema } from '@ahp/protocol/wire';
import type { InterventionPayload, Plan, ProtocolState, RequestTarget, WelcomeAgent } from '@ahp/protocol/wire';
import { AhpClientError } from './errors.js';
import type { Logger } from './logger.js';
import { checkOutgoing } from './outgoing-frame.js';
import { OPERATORS_REQUEST_SUFFIX, allMustApprove, planApprovalTargets } from './plan-approval.js';
import type { PlanApprover } from './plan-approval.js';
import type { RequestManager } from './request-manager.js';
import type { RequestAnswer, RequestDecision, TeamChannel } from './team.js';

/** Per-call options of {@link AhpClient.submitPlan} and {@link AhpClient.requestShutdown}. */
export interface OpenRequestOptions {
  /**
   * The request id: pass the same one again (e.g. after a restart) to wait for the same request
   * instead of opening a second one.
   * @defaultValue `req_` + a random UUID
   */
  requestId?: string;
  /**
   * Sent as `deadline_ms`: after this long the request expires undecided and the promise
   * resolves with `status: 'expired'`.
   * @defaultValue none: the request waits until it is decided
   */
  deadlineMs?: number;
}

/** Options of {@link AhpClient.requestIntervention}: who should look (default: the operators) and the request id. */
export interface RequestInterventionOptions extends OpenRequestOptions {
  /**
   * Who decides: an agent id (the team's lead) or a {@link RequestTarget}.
   * @defaultValue `{ kind: 'operators' }` (any operator, in the console)
   */
  target?: string | RequestTarget;
}

/** Options of {@link AhpClient.submitPlan}. */
export interface SubmitPlanOptions extends RequestInterventionOptions {
  /**
   * Who approves (docs/spec/teams.md#plan-approval: the lead): `lead`, `operators`, or `both` — one request to each, both
   * must approve; the first refusal or expiry decides and the other request is cancelled. The
   * operators' request id is the lead's plus `.operators`. An explicit `target` wins.
   * @defaultValue `lead` when `ClientOptions.lead` names another agent, else `operators`
   */
  approver?: PlanApprover;
}

/** Options of {@link AhpClient.requestShutdown}. */
export interface RequestShutdownOptions extends OpenRequestOptions {
  /** Why the teammate should stop; shown to it. */
  reason?: string;
}

/** A fresh request id: `req_` and a random UUID, unguessable so nobody can claim it first. */
function newRequestId(): string {
  return `req_${globalThis.crypto.randomUUID()}`;
}

/** What {@link TeamRequests} needs from the client. */
export interface TeamRequestsDeps {
  readonly team: TeamChannel;
  readonly requests: RequestManager;
  readonly requestDeadlineMs: number;
  /** `ClientOptions.lead`, when set. */
  readonly lead: string | undefined;
  /** Who the latest `welcome` says this agent is. */
  readonly agent: () => WelcomeAgent | undefined;
  readonly logger: Logger;
}

/** See the module comment; each method is documented on {@link AhpClient}. */
export class TeamRequests {
  readonly #deps: TeamRequestsDeps;

  constructor(deps: TeamRequestsDeps) {
    this.#deps = deps;
  }

  async submitPlan(plan: Plan, options: SubmitPlanOptions = {}): Promise<RequestDecision> {
    const targets = planApprovalTargets(options, { lead: this.lead, self: this.#deps.agent() });
    const requestId = options.requestId ?? newRequestId();
    const request = (id: string, target: RequestTarget) => ({
      request_id: id,
      type: 'plan_approval' as const,
      target,
      payload: { plan },
      ...(options.deadlineMs === undefined ? {} : { deadline_ms: options.deadlineMs }),
    });
    const [first, second] = targets;
    if (first === undefined || second === undefined) return this.#deps.team.openAndWait(request(requestId, first ?? { kind: 'operators' }));
    // Both: one after the other, so a second request that cannot be opened withdraws a first that surely exists.
    const toLead = await this.#deps.team.open(request(requestId, first));
    const operatorsId = `${requestId}${OPERATORS_REQUEST_SUFFIX}`;
    let toOperators: { readonly decided: Promise<RequestDecision> };
    try {
      toOperators = await this.#deps.team.open(request(operatorsId, second));
    } catch (error) {
      await this.cancelRequest(requestId).catch((cancelError: unknown) => this.#deps.logger.warn({ requestId, error: String(cancelError) }, 'could not withdraw the lead plan approval'));
      throw error;
    }
    return allMustApprove(
      [
        { requestId, decision: toLead.decided },
        { requestId: operatorsId, decision: toOperators.decided },
      ],
      (id) => this.cancelRequest(id),
      this.#deps.logger,
    );
  }

  get lead(): string | undefined {
    if (this.#deps.lead !== undefined) return this.#deps.lead;
    const agent = this.#deps.agent();
    return agent?.lead !== undefined && agent.lead !== agent.id ? agent.lead : undefined;
  }

  requestIntervention(payload: InterventionPayload, options: RequestInterventionOptions = {}): Promise<RequestDecision> {
    const target = options.target ?? { kind: 'operators' };
    return this.#deps.team.openAndWait({
      request_id: options.requestId ?? newRequestId(),
      type: 'intervention',
      target: typeof target === 'string' ? { kind: 'agent', agent: target } : target,
      payload,
      ...(options.deadlineMs === undefined ? {} : { deadline_ms: options.deadlineMs }),
    });
  }

  requestShutdown(agent: string, options: RequestShutdownOptions = {}): Promise<RequestDecision> {
    return this.#deps.team.openAndWait({
      request_id: options.requestId ?? newRequestId(),
      type: 'shutdown',
      target: { kind: 'agent', agent },
      payload: options.reason === undefined ? {} : { reason: options.reason },
      ...(options.deadlineMs === undefined ? {} : { deadline_ms: options.deadlineMs }),
    });
  }

  answerRequest(requestId: string, answer: RequestAnswer): Promise<ProtocolState> {
    const state = this.#deps.team.stateOf(requestId);
    if (state === undefined) {
      return Promise.reject(new AhpClientError('E_NOT_FOUND', `request ${requestId} has not reached this client`, { details: { request_id: requestId } }));
    }
    return this.#deps.team.answer(requestId, state.type, answer);
  }

  async cancelRequest(requestId: string): Promise<ProtocolState> {
    const frame = checkOutgoing(CancelFrameSchema, { type: 'cancel', id: globalThis.crypto.randomUUID(), request_id: requestId }, 'cancel');
    const reply = await this.#deps.requests.send(frame, { deadlineMs: this.#deps.requestDeadlineMs });
    if (reply.result?.kind !== 'request') throw new AhpClientError('E_PROTOCOL', 'the gateway acknowledged a cancel without the request state');
    // The request_update push follows; settling the local waiters now saves the wait for it.
    this.#deps.team.onRequestState(reply.result.request);
    return reply.result.request;
  }

  reviewPlan(requestId: string, approve: boolean, feedback?: string): Promise<ProtocolState> {
    return this.#deps.team.answer(requestId, 'plan_approval', { approve, ...(feedback === undefined ? {} : { feedback }) });
  }
}
