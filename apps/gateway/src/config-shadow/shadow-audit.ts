/**
 * How the shadow routes are audited (see `@Audited`): which shadow, and the live version a promote
 * produced. Kept beside the routes so the shadow's module merges on its own.
 */
import type { DropShadowResponse, JsonObject, PromoteShadowResponse, SetShadowResponse } from '@ahp/protocol';
import type { AuditSpec, AuditedRequest } from '../audit/audited.decorator.js';

function bodyBytes(request: AuditedRequest): JsonObject {
  const body = request.body;
  const source = body !== null && typeof body === 'object' && Object.hasOwn(body, 'source') ? (body as { source?: unknown }).source : undefined;
  return typeof source === 'string' ? { bytes: Buffer.byteLength(source, 'utf8') } : {};
}

/** `POST /v1/operator/config/shadow`: the shadow number set, or why it was refused. */
export const CONFIG_SHADOW_AUDIT: AuditSpec<SetShadowResponse> = {
  action: 'config.shadow',
  target: () => 'hooks',
  outcome: (result) => (result.unchanged ? 'unchanged' : 'applied'),
  details: (request, result) => ({ ...bodyBytes(request), ...(result === undefined ? {} : { shadow: result.shadow }) }),
};

/** `POST /v1/operator/config/shadow/promote`: the shadow and the live version it became. */
export const CONFIG_SHADOW_PROMOTE_AUDIT: AuditSpec<PromoteShadowResponse> = {
  action: 'config.shadow.promote',
  target: () => 'hooks',
  outcome: (result) => (result.unchanged ? 'unchanged' : 'applied'),
  details: (_request, result): JsonObject => (result === undefined ? {} : { shadow: result.shadow, version: result.version }),
};

/** `DELETE /v1/operator/config/shadow`: the shadow dropped. */
export const CONFIG_SHADOW_DROP_AUDIT: AuditSpec<DropShadowResponse> = {
  action: 'config.shadow.drop',
  target: () => 'hooks',
  outcome: () => 'applied',
  details: (_request, result): JsonObject => (result === undefined ? {} : { shadow: result.shadow }),
};
