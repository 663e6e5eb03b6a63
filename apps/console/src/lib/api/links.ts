/** Decision links from notifications (the console's /decide page) and replaying dead notification deliveries. */
import {
  DecisionLinkInspectResponseSchema,
  NotificationReplayResponseSchema,
  RequestDecisionResponseSchema,
  type DecisionLinkInspectResponse,
  type NotificationReplayResponse,
  type RequestDecisionResponse,
} from '@ahp/protocol';
import { callJson, operatorUrl } from './client';

/** `POST /links/inspect`: what the link would do and its waiting request. Reading does not use the link. */
export function inspectLink(token: string, signal?: AbortSignal): Promise<DecisionLinkInspectResponse> {
  return callJson(operatorUrl('links/inspect'), DecisionLinkInspectResponseSchema, { method: 'POST', body: { token }, ...(signal ? { signal } : {}) });
}

/** `POST /links/redeem`: the operator's tap; decides as the signed-in operator and uses the link up. */
export function redeemLink(token: string): Promise<RequestDecisionResponse> {
  return callJson(operatorUrl('links/redeem'), RequestDecisionResponseSchema, { method: 'POST', body: { token } });
}

/** `POST /notifications/dead-letters/:id/replay`: a dead delivery queued again (fleet-wide admins). */
export function replayDeadLetter(deliveryId: string): Promise<NotificationReplayResponse> {
  return callJson(operatorUrl(`notifications/dead-letters/${encodeURIComponent(deliveryId)}/replay`), NotificationReplayResponseSchema, { method: 'POST' });
}
