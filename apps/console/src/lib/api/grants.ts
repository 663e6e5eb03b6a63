/** Session grants (an approval that also covers the rest of an agent's session) and their revocation. */
import { GrantListResponseSchema, GrantRevokeResponseSchema, type GrantRevokeResponse, type ToolGrant } from '@ahp/protocol';
import { callJson, operatorUrl } from './client';

/** Every grant that has not expired, revoked ones included, newest first. */
export async function fetchGrants(signal?: AbortSignal): Promise<readonly ToolGrant[]> {
  const { grants } = await callJson(operatorUrl('grants'), GrantListResponseSchema, signal ? { signal } : {});
  return grants;
}

/** `DELETE /grants/:id`: effective for the agent's very next hook, on every gateway and worker. */
export function revokeGrant(grantId: string): Promise<GrantRevokeResponse> {
  return callJson(operatorUrl(`grants/${encodeURIComponent(grantId)}`), GrantRevokeResponseSchema, { method: 'DELETE' });
}
