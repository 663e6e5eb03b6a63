/**
 * Routing new requests to notification channels. The workers follow the request audit stream as
 * one consumer group (request-event-consumer in `@ahp/store`): each `created` event of a request
 * addressed to operators is taken by one worker, which routes it with the `notifications:` section
 * of the hooks configuration version it serves and queues one job per channel. Nothing of this
 * runs where the request is opened: a gateway or worker that opens a request does not wait for it.
 *
 * Delivery ids are derived from the request id and the channel name, so routing the same event
 * twice (a worker died before acknowledging it) queues the same jobs, which BullMQ adds once.
 *
 * Throttle per agent (notification-throttle in `@ahp/store`, shared by every worker in Redis): of
 * one agent's requests created in one window, the first `maxPerWindow` are notified one by one
 * (with their escalation tiers); the next one queues a single digest per channel, delayed to the
 * window's end, which counts them all then; the rest queue nothing and wait in the console. So an
 * agent flooding the operators with requests costs them one message per window and channel.
 */
import { createHash } from 'node:crypto';
import { routeEscalation, routeNotification, type NotificationsConfig } from '@ahp/protocol';
import type { Logger, NotificationQueue, NotificationStore, NotificationThrottle, RedisClient, RequestEventRecord, StoreKeys } from '@ahp/store';
import { createRequestEventConsumer, readRequestTeams, type RequestEventConsumer } from '@ahp/store';
import { approvalsUrl, waitingRequestOf } from './message.js';

/** The consumer group of the request audit stream that notifications use. */
export const NOTIFICATION_GROUP = 'notifications';

/** The delivery id of a request to a channel (at an escalation tier): a UUID-shaped SHA-256 of them, the same on every worker. */
export function deliveryIdOf(requestId: string, channel: string, tier = 0): string {
  const hex = createHash('sha256').update(tier === 0 ? `${requestId}\n${channel}` : `${requestId}\n${channel}\n${tier}`, 'utf8').digest('hex');
  // Version 8 (custom) UUID layout: the digest with the version and variant bits set.
  const variant = ((parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Which `notifications:` section applies now, and the version it came from. */
export interface ActiveNotifications {
  readonly config: NotificationsConfig | undefined;
  readonly version: number | undefined;
}

export interface NotificationDispatcherOptions {
  readonly redis: RedisClient;
  readonly keys: StoreKeys;
  readonly workerId: string;
  readonly queue: Pick<NotificationQueue, 'enqueue'>;
  /** The clock escalation delays are counted against (the request's creation time is the start). */
  readonly now?: () => number;
  readonly store: Pick<NotificationStore, 'open'>;
  readonly active: () => ActiveNotifications;
  /** The console's base URL; undefined: notifications carry no link. */
  readonly consoleUrl: string | undefined;
  readonly logger: Logger;
  /** @defaultValue `30000` */
  readonly claimIdleMs?: number;
  /** The per-agent throttle; undefined: every request is notified one by one. */
  readonly throttle?: Pick<NotificationThrottle, 'admit' | 'maxPerWindow'>;
}

/** Routes one audit event: the jobs it queued (none for anything but a new request to operators). */
export async function dispatchRequestEvent(event: RequestEventRecord, options: Omit<NotificationDispatcherOptions, 'workerId' | 'claimIdleMs'>): Promise<number> {
  const state = event.state;
  if (event.event !== 'created' || state === undefined || state.target.kind !== 'operators' || state.status !== 'pending') return 0;
  const { config, version } = options.active();
  if (config === undefined) return 0;
  // The sender's team as the request recorded it at creation (its token's team).
  const teams = await readRequestTeams(options.redis, options.keys, state.request_id);
  const team = teams?.[0];
  const subject = { type: state.type, team };
  const channels = routeNotification(config, subject);
  const escalation = routeEscalation(config, subject);
  if (channels.length === 0 && escalation.length === 0) return 0;
  const request = waitingRequestOf(state, team);
  const consoleUrl = options.consoleUrl === undefined ? undefined : approvalsUrl(options.consoleUrl);
  const createdMs = Date.parse(state.created_at);
  const now = options.now?.() ?? Date.now();
  const admitted = options.throttle === undefined ? undefined : await options.throttle.admit(state.sender, state.request_id, createdMs);
  if (admitted !== undefined && admitted.kind !== 'notify') {
    const fields = { requestId: state.request_id, sender: state.sender, position: admitted.position, windowEnd: new Date(admitted.windowEndMs).toISOString() };
    if (admitted.kind === 'counted') {
      options.logger.info(fields, 'notification held back: the agent is over its notifications of this window (counted in the digest)');
      return 0;
    }
    // The first request over the limit: one digest per channel, sent when the window ends.
    const digest = { notified: options.throttle?.maxPerWindow ?? admitted.position, window_start: new Date(admitted.windowStartMs).toISOString(), window_end: new Date(admitted.windowEndMs).toISOString() };
    for (const { name, channel } of channels) {
      const deliveryId = deliveryIdOf(`digest\n${state.sender}\n${admitted.windowStartMs}`, name);
      await options.store.open({ delivery_id: deliveryId, channel: name, channel_type: channel.type, request_id: state.request_id, request_type: state.type, created_at: event.at, due_at: digest.window_end });
      await options.queue.enqueue(
        {
          delivery_id: deliveryId,
          channel: name,
          target: channel,
          request,
          tier: 0,
          digest,
          ...(consoleUrl === undefined ? {} : { console_url: consoleUrl }),
          ...(version === undefined ? {} : { config_version: version }),
        },
        { delayMs: Math.max(0, admitted.windowEndMs - now) },
      );
    }
    options.logger.info({ ...fields, channels: channels.map((c) => c.name) }, 'notification digest queued: the agent is over its notifications of this window');
    return channels.length;
  }
  const deadlineMs = state.deadline === undefined ? Number.POSITIVE_INFINITY : Date.parse(state.deadline);
  // Tier 0 now; each escalation tier as a delayed job, due `after` the request's creation. A tier
  // due at or after the deadline is not queued: the request settles itself by then (the deadline
  // behaviour is the request's own and notifications never change it).
  const plan = [
    { tier: 0, dueMs: createdMs, role: undefined as 'admin' | undefined, channels },
    ...escalation.map((tier) => ({ tier: tier.tier, dueMs: createdMs + tier.afterMs, role: tier.role, channels: tier.channels })),
  ].filter((step) => step.tier === 0 || step.dueMs < deadlineMs);
  let queued = 0;
  for (const step of plan) {
    const delayMs = Math.max(0, step.dueMs - now);
    for (const { name, channel } of step.channels) {
      const deliveryId = deliveryIdOf(state.request_id, name, step.tier);
      await options.store.open({
        delivery_id: deliveryId,
        channel: name,
        channel_type: channel.type,
        request_id: state.request_id,
        request_type: state.type,
        created_at: event.at,
        ...(step.tier === 0 ? {} : { tier: step.tier, due_at: new Date(step.dueMs).toISOString() }),
      });
      await options.queue.enqueue(
        {
          delivery_id: deliveryId,
          channel: name,
          target: channel,
          request,
          tier: step.tier,
          ...(step.role === undefined ? {} : { role: step.role }),
          ...(consoleUrl === undefined ? {} : { console_url: consoleUrl }),
          ...(version === undefined ? {} : { config_version: version }),
        },
        { delayMs },
      );
      queued += 1;
    }
  }
  options.logger.info(
    { requestId: state.request_id, type: state.type, team, channels: channels.map((c) => c.name), escalation: plan.filter((p) => p.tier > 0).map((p) => ({ tier: p.tier, due: new Date(p.dueMs).toISOString(), channels: p.channels.map((c) => c.name) })), configVersion: version },
    'notifications queued',
  );
  return queued;
}

/** The dispatcher of this worker: a member of the {@link NOTIFICATION_GROUP} group. */
export function createNotificationDispatcher(options: NotificationDispatcherOptions): RequestEventConsumer {
  return createRequestEventConsumer({
    redis: options.redis,
    keys: options.keys,
    group: NOTIFICATION_GROUP,
    consumer: options.workerId,
    logger: options.logger,
    ...(options.claimIdleMs === undefined ? {} : { claimIdleMs: options.claimIdleMs }),
    onEvent: async (event) => {
      await dispatchRequestEvent(event, options);
    },
  });
}
