/** An agent's enforcement state: its breakers' counts, the block/control signals it left unanswered, its rules' escalation counters. */
import {
  EnforcementResetResponseSchema,
  EnforcementStateResponseSchema,
  type EnforcementPart,
  type EnforcementResetResponse,
  type EnforcementState,
} from '@ahp/protocol';
import { callJson, operatorUrl } from './client';

/** `GET /agents/:agentId/enforcement`: every part as it is now (any role). */
export async function fetchEnforcement(agentId: string, signal?: AbortSignal): Promise<EnforcementState> {
  const { state } = await callJson(operatorUrl(`agents/${encodeURIComponent(agentId)}/enforcement`), EnforcementStateResponseSchema, signal ? { signal } : {});
  return state;
}

/**
 * `POST /agents/:agentId/enforcement/reset`: lifts `parts` (approvers and admins) and resolves with
 * what they held before; rejects with an `ApiError` (`E_FORBIDDEN`, `E_NOT_FOUND`, …).
 */
export function resetEnforcement(agentId: string, parts: readonly EnforcementPart[]): Promise<EnforcementResetResponse> {
  return callJson(operatorUrl(`agents/${encodeURIComponent(agentId)}/enforcement/reset`), EnforcementResetResponseSchema, { method: 'POST', body: { parts } });
}
