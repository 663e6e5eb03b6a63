/** Requests (plan and tool approvals, shutdowns, interventions) and operators' decisions on them. */
import {
  RequestDecisionResponseSchema,
  RequestDetailResponseSchema,
  RequestListResponseSchema,
  MAX_LIST_LIMIT,
  type ApprovalScope,
  type JsonObject,
  type ProtocolState,
  type RequestDecisionResponse,
  type RequestDetailResponse,
} from '@ahp/protocol';
import { callJson, operatorUrl } from './client';

/**
 * The approval queue: pending requests addressed to operators, oldest first — read oldest first
 * too, so that the {@link MAX_LIST_LIMIT} listed are the earliest opened, not the newest: another
 * agent opening many requests cannot push one out of the queue (and each agent has at most
 * AHP_AGENT_MAX_PENDING_REQUESTS pending, 100 by default). `agent`: that agent's only.
 */
export async function fetchApprovalQueue(signal?: AbortSignal, agent?: string): Promise<ProtocolState[]> {
  const { requests } = await callJson(
    operatorUrl('requests', { status: 'pending', target: 'operators', order: 'oldest', limit: MAX_LIST_LIMIT, agent }),
    RequestListResponseSchema,
    signal ? { signal } : {},
  );
  return [...requests].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
}

/** Requests an agent sent or must answer, newest first. */
export async function fetchAgentRequests(agentId: string, signal?: AbortSignal): Promise<ProtocolState[]> {
  const { requests } = await callJson(operatorUrl('requests', { agent: agentId, limit: 100 }), RequestListResponseSchema, signal ? { signal } : {});
  return requests;
}

/** What the approvals history can be narrowed to (the operator API's own filters). */
export interface HistoryFilters {
  /** A settled status, or every settled one. */
  status: 'settled' | 'approved' | 'rejected' | 'expired' | 'cancelled';
  type?: ProtocolState['type'];
  agent?: string;
  team?: string;
}

/**
 * Settled requests addressed to operators, newest first (at most {@link MAX_LIST_LIMIT}). The API
 * filters by one status; "settled" asks for all and drops the pending ones.
 */
export async function fetchRequestHistory(filters: HistoryFilters, signal?: AbortSignal): Promise<ProtocolState[]> {
  const query = {
    target: 'operators',
    limit: MAX_LIST_LIMIT,
    ...(filters.status === 'settled' ? {} : { status: filters.status }),
    ...(filters.type ? { type: filters.type } : {}),
    ...(filters.agent ? { agent: filters.agent } : {}),
    ...(filters.team ? { team: filters.team } : {}),
  };
  const { requests } = await callJson(operatorUrl('requests', query), RequestListResponseSchema, signal ? { signal } : {});
  return requests.filter((request) => request.status !== 'pending');
}

/** One request with its history. */
export function fetchRequest(requestId: string, signal?: AbortSignal): Promise<RequestDetailResponse> {
  return callJson(operatorUrl(`requests/${encodeURIComponent(requestId)}`), RequestDetailResponseSchema, signal ? { signal } : {});
}

/** An operator's decision. */
export interface Decision {
  approve: boolean;
  feedback?: string;
  /** Only when approving a tool approval: the input the agent runs instead. */
  modifiedInput?: JsonObject;
  /** Only when approving a tool approval: also allow it for the rest of the agent's session (a revocable grant). */
  scope?: ApprovalScope;
}

/**
 * `POST /requests/:id/decision`. Resolves with `applied` or `already_decided` (the same decision
 * was made before, maybe by someone else: `request.decided_by` says who); rejects with an
 * `ApiError` — `E_CONFLICT` (decided the other way first, `details.decided_by`), `E_FORBIDDEN`…
 */
export function decideRequest(requestId: string, decision: Decision): Promise<RequestDecisionResponse> {
  const feedback = decision.feedback?.trim();
  return callJson(operatorUrl(`requests/${encodeURIComponent(requestId)}/decision`), RequestDecisionResponseSchema, {
    method: 'POST',
    body: {
      approve: decision.approve,
      ...(feedback ? { feedback } : {}),
      ...(decision.modifiedInput === undefined ? {} : { modified_input: decision.modifiedInput }),
      ...(decision.scope === undefined || decision.scope === 'once' ? {} : { scope: decision.scope }),
    },
  });
}
