/** What the workers' notifications did: recent deliveries with their attempts, and the dead-letter list (fleet-wide admins). */
import { NotificationDeliveriesResponseSchema, type NotificationDeliveriesResponse } from '@ahp/protocol';
import { callJson, operatorUrl } from './client';

/** `GET /notifications/deliveries`: the newest `limit` deliveries and dead letters. */
export function fetchNotificationDeliveries(signal?: AbortSignal, limit = 50): Promise<NotificationDeliveriesResponse> {
  return callJson(operatorUrl('notifications/deliveries', { limit }), NotificationDeliveriesResponseSchema, signal ? { signal } : {});
}
