import { Inject, Injectable } from '@nestjs/common';
import {
  CLOSE_CODES,
  ProtocolResponseSchema,
  RequestHistoryEntrySchema,
  createRequest,
  issueDetails,
  makeError,
  responseTypeFor,
  scopeCoversTeam,
  type AhpError,
  type CancelFrame,
  type ListRequestsQuery,
  type OpenRequest,
  type OperatorIdentity,
  type ProtocolState,
  type RequestDecisionBody,
  type RequestFrame,
  type RequestHistoryEntry,
  type ResponseFrame,
} from '@ahp/protocol';
import { TooManyRequestsError, type RequestStore } from '@ahp/store';
import type { AgentConnection } from '../connections/agent-connection.js';
import { AgentAuthService } from '../auth/agent-auth.service.js';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { REQUEST_STORE } from '../store/store.tokens.js';
import { decideResult, type DecideResult } from './decide-result.js';
import { checkAgentAnswer, checkOpenRequest, checkOperatorDecision, checkOperatorScope } from './request-access.js';

/** A store call failed: the caller may retry (every request operation is idempotent). */
function unavailable(what: string): AhpError {
  return makeError('E_UNAVAILABLE', `${what} failed for now; retry shortly`, undefined, { retryAfterMs: 1000 });
}

/**
 * The new pending state for an opened request: the sender is the connection's agent, never the
 * frame. Its deadline is at most `maxLifetimeMs` away, also when the frame names none: a request
 * nobody decides must still end (and leave the sender's count of pending requests).
 */
function pendingState(sender: string, request: OpenRequest, now: number, maxLifetimeMs: number): ProtocolState {
  const base = {
    requestId: request.request_id,
    sender,
    target: request.target,
    now: new Date(now).toISOString(),
    deadline: new Date(now + Math.min(request.deadline_ms ?? maxLifetimeMs, maxLifetimeMs)).toISOString(),
  };
  switch (request.type) {
    case 'shutdown':
      return createRequest({ ...base, type: 'shutdown', payload: request.payload });
    case 'plan_approval':
      return createRequest({ ...base, type: 'plan_approval', payload: request.payload });
    case 'tool_approval':
      return createRequest({ ...base, type: 'tool_approval', payload: request.payload });
    case 'intervention':
      return createRequest({ ...base, type: 'intervention', payload: request.payload });
  }
}

/**
 * Requests and their decisions (docs/spec/teams.md#requests), for both sides of the gateway: agents open
 * and answer them with `request` / `response` frames, operators list and decide them through the
 * operator API. Authorization is checked here (see request-access.ts); the state machine and the
 * "exactly one decision wins" guarantee belong to the {@link RequestStore}, which also writes the
 * inbox messages that tell the other party (`*_request` to an agent target, `*_response` to the
 * sender) — so this service never has to reach the other party's socket itself.
 */
/** How long an agent that approved its shutdown may take to close by itself before the gateway closes it. */
export const SESSION_END_GRACE_MS = 3000;

@Injectable()
export class RequestsService {
  private readonly log: JsonLogger;

  constructor(
    @Inject(REQUEST_STORE) private readonly requests: RequestStore,
    @Inject(AgentAuthService) private readonly auth: AgentAuthService,
    @Inject(LOGGER) logger: JsonLogger,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {
    this.log = logger.child({ component: 'requests' });
  }

  /**
   * Serves a `request` frame. Re-sending the same request id is safe: the reply carries the
   * stored state. An id already used by another agent, or by this agent for a different request,
   * is `E_CONFLICT`.
   */
  async open(connection: AgentConnection, frame: RequestFrame, now: number = Date.now()): Promise<void> {
    const { request } = frame;
    const fields = { agentId: connection.agentId, sessionId: connection.sessionId, requestId: request.request_id, type: request.type };
    const refusal = checkOpenRequest(connection.agent.identity, request, (id) => this.auth.identityOf(id));
    if (refusal !== null) {
      connection.sendError(frame.id, refusal);
      return;
    }
    let created: Awaited<ReturnType<RequestStore['create']>>;
    try {
      created = await this.requests.create(pendingState(connection.agentId, request, now, this.config.agentRequestMaxLifetimeMs), now);
    } catch (error) {
      if (error instanceof TooManyRequestsError) {
        this.log.info({ ...fields, max: error.max }, 'request refused: too many pending');
        connection.sendError(frame.id, makeError('E_RATE_LIMITED', error.message, { limit: 'pending_requests', max: error.max }, { retryAfterMs: 60_000 }));
        return;
      }
      this.log.error({ ...fields, error }, 'opening the request failed');
      connection.sendError(frame.id, unavailable('opening the request'));
      return;
    }
    if ('outcome' in created) {
      // The same id with another sender, type or target: re-sending a request is fine, reusing its id is not.
      connection.fail(frame.id, 'E_CONFLICT', `request id ${request.request_id} is already used for another request; choose a new one`, {
        request_id: request.request_id,
      });
      return;
    }
    const { state } = created;
    this.log.info({ ...fields, created: created.created, status: state.status }, created.created ? 'request opened' : 'request re-sent');
    connection.send({ type: 'ack', id: frame.id, result: { kind: 'request', request: state } });
  }

  /** Serves a `response` frame: only the request's addressee may answer (`E_FORBIDDEN` otherwise). */
  async respond(connection: AgentConnection, frame: ResponseFrame, now: number = Date.now()): Promise<void> {
    const { response } = frame;
    const fields = { agentId: connection.agentId, sessionId: connection.sessionId, requestId: response.request_id, approve: response.approve };
    let result: DecideResult;
    try {
      const stored = await this.requests.get(response.request_id);
      if (stored === null) {
        connection.fail(frame.id, 'E_NOT_FOUND', `no request ${response.request_id}`, { request_id: response.request_id });
        return;
      }
      const refusal = checkAgentAnswer(stored.state, connection.agentId);
      if (refusal !== null) {
        connection.sendError(frame.id, refusal);
        return;
      }
      result = decideResult(response.request_id, await this.requests.decide(response.request_id, response, { kind: 'agent', id: connection.agentId }, now));
    } catch (error) {
      this.log.error({ ...fields, error }, 'deciding the request failed');
      connection.sendError(frame.id, unavailable('deciding the request'));
      return;
    }
    if (!result.ok) {
      this.log.info({ ...fields, code: result.error.code }, 'response refused');
      connection.sendError(frame.id, result.error);
      return;
    }
    this.log.info({ ...fields, outcome: result.outcome, status: result.state.status }, 'request answered');
    connection.send({ type: 'ack', id: frame.id, result: { kind: 'request', request: result.state } });
    if (result.state.type === 'shutdown' && result.state.status === 'approved') this.endSessionSoon(connection, response.request_id);
  }

  /**
   * The teammate approved its own shutdown (docs/spec/teams.md#shutdown): its session is over. The SDK closes by
   * itself once the ack arrives; a client that does not (an old or modified one) is closed here
   * with `4410 SESSION_ENDED` after {@link SESSION_END_GRACE_MS}, which tells it not to reconnect.
   */
  private endSessionSoon(connection: AgentConnection, requestId: string): void {
    const timer = setTimeout(() => {
      if (!connection.isOpen) return;
      connection.log.info({ sessionId: connection.sessionId, requestId }, 'closing the session of an agent that approved its shutdown');
      connection.close(CLOSE_CODES.SESSION_ENDED, 'shutdown approved');
    }, SESSION_END_GRACE_MS);
    timer.unref();
  }

  /**
   * Serves a `cancel` frame: the sender withdraws its pending request (`E_FORBIDDEN` for anyone
   * else). Cancelling a request this agent already cancelled is acknowledged again, so a re-sent
   * frame after a reconnect is harmless; any other settled request is `E_CONFLICT` with its state.
   */
  async cancel(connection: AgentConnection, frame: CancelFrame, now: number = Date.now()): Promise<void> {
    const requestId = frame.request_id;
    const fields = { agentId: connection.agentId, sessionId: connection.sessionId, requestId };
    let result: DecideResult;
    try {
      const stored = await this.requests.get(requestId);
      if (stored === null) {
        connection.fail(frame.id, 'E_NOT_FOUND', `no request ${requestId}`, { request_id: requestId });
        return;
      }
      if (stored.state.sender !== connection.agentId) {
        connection.fail(frame.id, 'E_FORBIDDEN', `only the sender of request ${requestId} may cancel it`, { request_id: requestId });
        return;
      }
      const outcome = await this.requests.cancel(requestId, { kind: 'agent', id: connection.agentId }, now);
      const again = outcome.outcome === 'not_pending' && outcome.state.status === 'cancelled' && outcome.state.decided_by === connection.agentId;
      result = again ? { ok: true, outcome: 'already_decided', state: outcome.state } : decideResult(requestId, outcome);
    } catch (error) {
      this.log.error({ ...fields, error }, 'cancelling the request failed');
      connection.sendError(frame.id, unavailable('cancelling the request'));
      return;
    }
    if (!result.ok) {
      this.log.info({ ...fields, code: result.error.code }, 'cancel refused');
      connection.sendError(frame.id, result.error);
      return;
    }
    this.log.info({ ...fields, outcome: result.outcome }, 'request cancelled by its sender');
    connection.send({ type: 'ack', id: frame.id, result: { kind: 'request', request: result.state } });
  }

  /**
   * Requests matching `query`, newest (or with `order: oldest`, oldest) first, among those `operator` may see (a request belongs to
   * its sender's team, per the sender's token). A team-scoped operator's listing reads each of its
   * teams' index (or the one `query.team` names, which the caller checked is in scope) and keeps
   * the requests whose sender is in scope now.
   */
  async list(query: ListRequestsQuery, operator?: OperatorIdentity): Promise<ProtocolState[]> {
    const filter = {
      limit: query.limit,
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.type === undefined ? {} : { type: query.type }),
      ...(query.agent === undefined ? {} : { agent: query.agent }),
      ...(query.target === undefined ? {} : { target: query.target }),
      ...(query.order === undefined ? {} : { order: query.order }),
    };
    const scopeTeams = operator?.scope?.teams;
    if (operator === undefined || scopeTeams === undefined) return this.requests.list({ ...filter, ...(query.team === undefined ? {} : { team: query.team }) });
    const teams = query.team === undefined ? scopeTeams : [query.team];
    const lists = await Promise.all(teams.map((team) => this.requests.list({ ...filter, team })));
    const seen = new Set<string>();
    const visible = lists.flat().filter((state) => {
      if (seen.has(state.request_id) || !scopeCoversTeam(operator, this.auth.identityOf(state.sender)?.team)) return false;
      seen.add(state.request_id);
      return true;
    });
    const sign = query.order === 'oldest' ? -1 : 1;
    return visible.sort((a, b) => sign * (Date.parse(b.created_at) - Date.parse(a.created_at))).slice(0, query.limit);
  }

  /**
   * One request with its history (oldest first), or null — also when `operator` may not see it,
   * so that a scoped token learns nothing of other teams' request ids. History entries are
   * checked with the protocol's schema, since they leave the gateway typed by it.
   */
  async get(requestId: string, operator?: OperatorIdentity): Promise<{ state: ProtocolState; history: RequestHistoryEntry[] } | null> {
    const found = await this.requests.get(requestId);
    if (found === null) return null;
    if (operator?.scope?.teams !== undefined && !scopeCoversTeam(operator, this.auth.identityOf(found.state.sender)?.team)) return null;
    return { state: found.state, history: found.history.map((entry) => RequestHistoryEntrySchema.parse(entry)) };
  }

  /**
   * Whether `operator` may decide `state` (scope, then role): null when allowed, else the error
   * {@link decideAsOperator} would answer. For callers that must know before they commit to
   * something (a decision link is used up only by a decision that can happen).
   */
  checkOperatorMayDecide(operator: OperatorIdentity, state: ProtocolState): AhpError | null {
    return checkOperatorScope(state, this.auth.identityOf(state.sender)?.team, operator) ?? checkOperatorDecision(state, operator);
  }

  /**
   * An operator's decision. The response type follows from the request (an operator cannot send
   * the wrong kind); the token's scope (team, request type) and then the role decide which
   * requests the operator may decide at all.
   */
  async decideAsOperator(operator: OperatorIdentity, requestId: string, body: RequestDecisionBody, now: number = Date.now()): Promise<DecideResult> {
    const stored = await this.requests.get(requestId);
    if (stored === null) return { ok: false, error: makeError('E_NOT_FOUND', `no request ${requestId}`, { request_id: requestId }) };
    const refusal = checkOperatorScope(stored.state, this.auth.identityOf(stored.state.sender)?.team, operator) ?? checkOperatorDecision(stored.state, operator);
    if (refusal !== null) return { ok: false, error: refusal };
    const response = ProtocolResponseSchema.safeParse({
      request_id: requestId,
      type: responseTypeFor(stored.state.type),
      approve: body.approve,
      ...(body.feedback === undefined ? {} : { feedback: body.feedback }),
      ...(body.modified_input === undefined ? {} : { modified_input: body.modified_input }),
    });
    if (!response.success) {
      return {
        ok: false,
        error: makeError('E_INVALID_FRAME', `this decision does not fit a ${stored.state.type} request: ${response.error.issues[0]?.message ?? 'invalid'}`, {
          request_id: requestId,
          ...issueDetails(response.error.issues),
        }),
      };
    }
    const decided = decideResult(requestId, await this.requests.decide(requestId, response.data, { kind: 'operator', id: operator.id }, now));
    // A permission prompt that waited for this request answered without it already: the decision
    // is late for that prompt (it applies to a retry of the identical call), and is said to be.
    const fellBack = [...stored.history].reverse().find((entry) => entry.event === 'prompt_fallback');
    const result: DecideResult = decided.ok && fellBack !== undefined ? { ...decided, afterPromptFallback: fellBack.at } : decided;
    this.log.info(
      {
        requestId,
        operatorId: operator.id,
        approve: body.approve,
        ...(result.ok ? { outcome: result.outcome } : { code: result.error.code }),
        ...(fellBack === undefined ? {} : { afterPromptFallback: fellBack.at }),
      },
      fellBack === undefined ? 'operator decision' : "operator decision after the agent's permission prompt fell back",
    );
    return result;
  }
}
