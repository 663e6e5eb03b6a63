/** A hook's drill-down (`GET /v1/operator/hooks/:hookId`). */
import { HookDrillDownResponseSchema, type HookDrillDownResponse } from '@ahp/protocol';
import { callJson, operatorUrl } from './client';

/** The drill-down of a hook (partial for a recent one without signals, its own form for one the failure policy decided); rejects with `E_NOT_FOUND` when there is none (not decided yet, expired, or outside the token's teams). */
export function fetchHookDrillDown(hookId: string, signal?: AbortSignal): Promise<HookDrillDownResponse> {
  return callJson(operatorUrl(`hooks/${encodeURIComponent(hookId)}`), HookDrillDownResponseSchema, signal ? { signal } : {});
}

/** Where the drill-down of a hook lives in the console. */
export function hookHref(hookId: string): string {
  return `/hooks/${encodeURIComponent(hookId)}`;
}
