/**
 * Who may open, answer and decide which request, and who may message whom: the authorization
 * rules of teams (docs/spec/teams.md#who-may-ask-and-answer), as pure functions over identities and states. Every function returns
 * `null` when the action is allowed, else the typed error to answer with.
 *
 * The acting agent is always the connection's (from its token), never a name in a frame, so these
 * rules only ever compare the token's identity with the request or message.
 */
import { TOOL_APPROVAL_REQUEST_PREFIX, makeError, roleAllows, scopeCoversRequestType, scopeCoversTeam, type AgentIdentity, type AhpError, type OpenRequest, type OperatorIdentity, type ProtocolState } from '@ahp/protocol';

/** Looks up a known, unrevoked agent (from the tokens file). */
export type AgentLookup = (agentId: string) => AgentIdentity | undefined;

/** Whether both agents belong to one team. Agents without a team have no teammates. */
export function sameTeam(a: AgentIdentity, b: AgentIdentity): boolean {
  return a.team !== undefined && a.team === b.team;
}

/**
 * Whether `sender` may put a message in `to`'s inbox: only within its own team
 * (docs/spec/teams.md#messages-and-inboxes: inboxes connect teammates). An unknown or revoked recipient is `E_NOT_FOUND`.
 */
export function checkSend(sender: AgentIdentity, to: string, lookup: AgentLookup): AhpError | null {
  const recipient = lookup(to);
  if (recipient === undefined) return makeError('E_NOT_FOUND', `no agent "${to}"`, { agent: to });
  if (!sameTeam(sender, recipient)) {
    return makeError('E_FORBIDDEN', `"${to}" is not in your team; messages stay within a team`, { agent: to });
  }
  return null;
}

/**
 * Whether `sender` may open `request`:
 * - addressed to an agent: a known teammate other than itself. A `shutdown` is asked by the
 *   team's lead (docs/spec/teams.md#shutdown: the lead stops its teammates); a `plan_approval` or `tool_approval`
 *   goes to the team's lead.
 * - addressed to operators: plan and tool approvals and interventions; stopping an agent is its
 *   lead's call.
 * - an `intervention` (the sender stopped at a circuit breaker) goes to the operators or to the
 *   team's lead.
 * - never under an id starting with `req_tool_`: those are the approvals rules open for hooks;
 *   nor a `tool_approval` naming a rule (`rule`, `rules`): only a rule's own request says which
 *   rule asked, so an operator is never shown an agent's request as a rule's.
 */
export function checkOpenRequest(sender: AgentIdentity, request: OpenRequest, lookup: AgentLookup): AhpError | null {
  if (request.request_id.startsWith(TOOL_APPROVAL_REQUEST_PREFIX)) {
    // Reserved for the approvals rules open on an agent's behalf (their id derives from the hook id).
    return makeError('E_FORBIDDEN', `request ids starting with "${TOOL_APPROVAL_REQUEST_PREFIX}" are reserved for approvals that rules open`, { request_id: request.request_id });
  }
  if (request.type === 'tool_approval' && (request.payload.rule !== undefined || request.payload.rules !== undefined)) {
    return makeError('E_FORBIDDEN', 'a tool approval an agent opens cannot name a rule (rule, rules): only approvals that rules open do', { request_id: request.request_id });
  }
  const target = request.target;
  if (target.kind === 'operators') {
    return request.type === 'shutdown'
      ? makeError('E_FORBIDDEN', 'a shutdown request is addressed to an agent, not to operators', { type: request.type })
      : null;
  }
  const targetAgent = lookup(target.agent);
  if (targetAgent === undefined) return makeError('E_NOT_FOUND', `no agent "${target.agent}"`, { agent: target.agent });
  if (targetAgent.id === sender.id) return makeError('E_FORBIDDEN', 'a request cannot be addressed to its own sender', { agent: target.agent });
  if (!sameTeam(sender, targetAgent)) {
    return makeError('E_FORBIDDEN', `"${target.agent}" is not in your team`, { agent: target.agent });
  }
  switch (request.type) {
    case 'shutdown':
      return sender.role === 'lead'
        ? null
        : makeError('E_FORBIDDEN', "only the team's lead can ask a teammate to shut down", { type: request.type });
    case 'plan_approval':
    case 'tool_approval':
    case 'intervention':
      return targetAgent.role === 'lead'
        ? null
        : makeError('E_FORBIDDEN', `a ${request.type} goes to the team's lead or to operators; "${target.agent}" is not the lead`, {
            type: request.type,
            agent: target.agent,
          });
  }
}

/**
 * Whether agent `agentId` may answer the request: only its addressee. Requests addressed to
 * operators are decided through the operator API.
 */
export function checkAgentAnswer(state: ProtocolState, agentId: string): AhpError | null {
  if (state.target.kind === 'agent' && state.target.agent === agentId) return null;
  const message =
    state.target.kind === 'operators'
      ? `request ${state.request_id} is decided by operators (operator API)`
      : `request ${state.request_id} is not addressed to you`;
  return makeError('E_FORBIDDEN', message, { request_id: state.request_id });
}

/**
 * Whether `operator` may decide the request: approvers decide requests addressed to operators;
 * admins also those addressed to an agent, to unblock a team whose member cannot answer.
 */
export function checkOperatorDecision(state: ProtocolState, operator: OperatorIdentity): AhpError | null {
  const needed = state.target.kind === 'operators' ? 'approver' : 'admin';
  if (roleAllows(operator.role, needed)) return null;
  const message =
    needed === 'approver'
      ? 'deciding requests needs the approver or admin role'
      : `request ${state.request_id} is addressed to agent "${state.target.kind === 'agent' ? state.target.agent : ''}"; only an admin may decide it instead`;
  return makeError('E_FORBIDDEN', message, { request_id: state.request_id, role: operator.role, required_role: needed });
}

/**
 * Whether a scoped operator may decide the request at all, before its role is asked. A request
 * belongs to its sender's team (`senderTeam`, from the sender's token). Outside the operator's
 * teams it is `E_NOT_FOUND`, worded exactly as for a request that does not exist, so a scoped
 * token cannot probe other teams' request ids; inside them but of a type the scope does not name,
 * it is `E_FORBIDDEN` (the operator can read the request, so refusing openly reveals nothing).
 */
export function checkOperatorScope(state: ProtocolState, senderTeam: string | undefined, operator: OperatorIdentity): AhpError | null {
  if (operator.scope?.teams !== undefined && !scopeCoversTeam(operator, senderTeam)) {
    return makeError('E_NOT_FOUND', `no request ${state.request_id}`, { request_id: state.request_id });
  }
  if (!scopeCoversRequestType(operator, state.type)) {
    return makeError('E_FORBIDDEN', `your token may decide ${operator.scope?.request_types?.join(', ') ?? ''} requests, not ${state.type}`, {
      request_id: state.request_id,
      request_type: state.type,
      scope: operator.scope ?? {},
    });
  }
  return null;
}
