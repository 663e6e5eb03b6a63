/** Web Push subscriptions of the signed-in operator (the console installed on a phone). */
import { PushSubscriptionsResponseSchema, VapidKeyResponseSchema, type PushSubscriptionsResponse, type VapidKeyResponse } from '@ahp/protocol';
import { callJson, operatorUrl } from './client';

export function fetchVapidKey(): Promise<VapidKeyResponse> {
  return callJson(operatorUrl('push/vapid-key'), VapidKeyResponseSchema);
}

/** Registers this browser's subscription (`PushSubscription.toJSON()`) for the operator. */
export function savePushSubscription(subscription: unknown): Promise<PushSubscriptionsResponse> {
  return callJson(operatorUrl('push/subscriptions'), PushSubscriptionsResponseSchema, { method: 'POST', body: subscription });
}

export function removePushSubscription(endpoint: string): Promise<PushSubscriptionsResponse> {
  return callJson(operatorUrl('push/subscriptions/remove'), PushSubscriptionsResponseSchema, { method: 'POST', body: { endpoint } });
}
