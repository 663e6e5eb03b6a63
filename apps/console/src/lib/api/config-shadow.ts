/** The shadow hooks configuration: read it with its disagreements, set one, promote it, drop it. */
import {
  DropShadowResponseSchema,
  PromoteShadowResponseSchema,
  SetShadowResponseSchema,
  ShadowStatusResponseSchema,
  type DropShadowResponse,
  type PromoteShadowResponse,
  type SetShadowResponse,
  type ShadowStatusResponse,
} from '@ahp/protocol';
import { callJson, isApiError, operatorUrl } from './client';

/** The shadow and its counters, or `null` while none is set. */
export async function fetchShadow(signal?: AbortSignal): Promise<ShadowStatusResponse | null> {
  try {
    return await callJson(operatorUrl('config/shadow'), ShadowStatusResponseSchema, signal ? { signal } : {});
  } catch (error) {
    if (isApiError(error, 'E_NOT_FOUND')) return null;
    throw error;
  }
}

/** Validates `source` as a publish does and makes it the shadow; an invalid text rejects with `E_INVALID_FRAME`. */
export function setShadow(source: string): Promise<SetShadowResponse> {
  return callJson(operatorUrl('config/shadow'), SetShadowResponseSchema, { method: 'POST', body: { source } });
}

/** Makes shadow `shadow` live; `E_CONFLICT` when another shadow replaced it meanwhile. */
export function promoteShadow(shadow: number): Promise<PromoteShadowResponse> {
  return callJson(operatorUrl('config/shadow/promote'), PromoteShadowResponseSchema, { method: 'POST', body: { shadow } });
}

/** Stops shadowing `shadow`. */
export function dropShadow(shadow: number): Promise<DropShadowResponse> {
  return callJson(operatorUrl('config/shadow', { shadow }), DropShadowResponseSchema, { method: 'DELETE' });
}
