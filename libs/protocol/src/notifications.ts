/**
 * Notifications (`notifications:` of `.ahp/hooks.yaml`): where AHP tells people that a request
 * waits for them, and what it sends. Part of the published hooks configuration, so it is
 * versioned with the rules.
 *
 * ```yaml
 * notifications:
 *   channels:
 *     on-call:
 *       type: webhook
 *       url: https://hooks.example.com/ahp
 *       secret_env: AHP_WEBHOOK_SECRET   # the worker reads the secret from this variable
 *     team-chat:
 *       type: slack
 *       url: https://hooks.slack.com/services/T000/B000/XXXX
 *   routes:
 *     - types: [tool_approval, intervention]
 *       teams: [payments]
 *       channels: [on-call, team-chat]
 *     - channels: [team-chat]          # every other request addressed to operators
 * ```
 *
 * This module holds the shapes and the routing (pure); signing and delivery run on the oracle
 * workers (apps/oracle-worker/src/notifications).
 */
import { z } from 'zod';
import { IdSchema, ShortStringSchema, TextSchema, TimestampSchema, UuidSchema, boundedArray, JsonObjectSchema } from './primitives.js';
import { REQUEST_TYPES, RequestIdSchema, RequestTypeSchema, type RequestType } from './request.js';

/** Limits of the `notifications:` section. */
export const NOTIFICATIONS_LIMITS = Object.freeze({
  maxChannels: 50,
  maxRoutes: 100,
  maxUrlChars: 2048,
});

/** A channel's name, as routes, delivery records and dead letters name it. */
export const NotificationChannelNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'must be lowercase letters, digits and . _ - , e.g. "on-call"');

/**
 * Where a channel posts: an absolute http(s) URL. Other schemes (file:, ftp:, javascript:…) are
 * refused, and so is a user name or password in the URL (it would end up in logs and records).
 */
export const NotificationUrlSchema = z
  .string()
  .max(NOTIFICATIONS_LIMITS.maxUrlChars)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '';
    } catch {
      return false;
    }
  }, 'must be an absolute http:// or https:// URL without a user name or password')
  .meta({ id: 'NotificationUrl', description: 'An absolute http(s) URL.' });

/** The name of an environment variable of the worker (the secret is never written in the configuration). */
export const EnvVariableNameSchema = z
  .string()
  .regex(/^[A-Z_][A-Z0-9_]{0,127}$/, 'must be an environment variable name: capital letters, digits and _, e.g. "AHP_WEBHOOK_SECRET"');

/**
 * A generic outgoing webhook: JSON posted to `url`, signed with HMAC-SHA256 with the secret in
 * the worker's environment variable `secret_env` (required: an unsigned notification could be
 * forged by anyone who learns the receiver's address).
 */
export const WebhookChannelSchema = z
  .strictObject({
    type: z.literal('webhook'),
    url: NotificationUrlSchema,
    secret_env: EnvVariableNameSchema,
    description: TextSchema.optional(),
  })
  .meta({ id: 'WebhookChannel', description: 'JSON posted to url, signed (HMAC-SHA256) with the secret in the variable secret_env.' });
export type WebhookChannel = z.infer<typeof WebhookChannelSchema>;

/** A Slack-compatible incoming webhook: a message (text and a button to the console). The URL is the secret. */
export const SlackChannelSchema = z
  .strictObject({
    type: z.literal('slack'),
    url: NotificationUrlSchema,
    description: TextSchema.optional(),
  })
  .meta({ id: 'SlackChannel', description: 'A Slack-compatible incoming-webhook URL: a message with a link button to the console.' });
export type SlackChannel = z.infer<typeof SlackChannelSchema>;

export const NotificationChannelSchema = z.discriminatedUnion('type', [WebhookChannelSchema, SlackChannelSchema]);
export type NotificationChannel = z.infer<typeof NotificationChannelSchema>;
export const NOTIFICATION_CHANNEL_TYPES = ['webhook', 'slack'] as const;

const TeamSelectorSchema = z.string().regex(/^(\*|[A-Za-z0-9._:-]{1,128})$/, 'must be a team id (letters, digits and . _ : -) or "*" for every team');

/**
 * One route: requests of these `types` (default: every type) whose sender is in one of these
 * `teams` (default, or `*`: any team, also none) go to `channels`. Every route that matches
 * sends; a channel named by several matching routes is notified once.
 */
export const NotificationRouteSchema = z
  .strictObject({
    types: boundedArray(RequestTypeSchema, REQUEST_TYPES.length).min(1).optional(),
    teams: boundedArray(TeamSelectorSchema, 100).min(1).optional(),
    channels: boundedArray(NotificationChannelNameSchema, NOTIFICATIONS_LIMITS.maxChannels).min(1),
  })
  .meta({ id: 'NotificationRoute', description: 'Request types and teams (default: all) → channels.' });
export type NotificationRoute = z.infer<typeof NotificationRouteSchema>;

/** The `notifications:` section: named channels and the routes to them. */
export const NotificationsConfigSchema = z
  .strictObject({
    channels: z.record(z.string(), NotificationChannelSchema),
    routes: boundedArray(NotificationRouteSchema, NOTIFICATIONS_LIMITS.maxRoutes),
  })
  .superRefine((config, ctx) => {
    const names = Object.keys(config.channels);
    if (names.length > NOTIFICATIONS_LIMITS.maxChannels) {
      ctx.addIssue({ code: 'custom', path: ['channels'], message: `at most ${NOTIFICATIONS_LIMITS.maxChannels} channels` });
    }
    for (const name of names) {
      if (!NotificationChannelNameSchema.safeParse(name).success) {
        ctx.addIssue({ code: 'custom', path: ['channels', name], message: `channel name "${name}" must be lowercase letters, digits and . _ -`, params: { at: 'key' } });
      }
    }
    const known = new Set(names);
    config.routes.forEach((route, index) => {
      route.channels.forEach((channel, at) => {
        if (!known.has(channel)) {
          ctx.addIssue({
            code: 'custom',
            path: ['routes', index, 'channels', at],
            message: `unknown channel "${channel}" (defined: ${names.length === 0 ? 'none' : names.join(', ')})`,
          });
        }
      });
    });
  })
  .meta({ id: 'NotificationsConfig', description: 'Channels (webhook, slack) and routes: which requests notify whom.' });
export type NotificationsConfig = z.infer<typeof NotificationsConfigSchema>;

/** What routing looks at: the request's type and its sender's team (none when the sender's token names none). */
export interface NotificationSubject {
  readonly type: RequestType;
  readonly team: string | undefined;
}

/** Whether `route` covers `subject`. */
export function routeMatches(route: NotificationRoute, subject: NotificationSubject): boolean {
  if (route.types !== undefined && !route.types.includes(subject.type)) return false;
  if (route.teams === undefined || route.teams.includes('*')) return true;
  return subject.team !== undefined && route.teams.includes(subject.team);
}

/** The channels (name and definition) `subject` goes to, each once, in the order routes name them. */
export function routeNotification(config: NotificationsConfig | undefined, subject: NotificationSubject): { name: string; channel: NotificationChannel }[] {
  if (config === undefined) return [];
  const out: { name: string; channel: NotificationChannel }[] = [];
  const seen = new Set<string>();
  for (const route of config.routes) {
    if (!routeMatches(route, subject)) continue;
    for (const name of route.channels) {
      const channel = config.channels[name];
      if (channel === undefined || seen.has(name)) continue;
      seen.add(name);
      out.push({ name, channel });
    }
  }
  return out;
}

/**
 * What waits, as a notification tells it. No token, no secret: a tool call's input is redacted as
 * the signal log redacts it, and the payload of other requests is reduced to a summary.
 */
export const WaitingRequestSchema = z.strictObject({
  id: RequestIdSchema,
  type: RequestTypeSchema,
  /** The agent that asks. */
  sender: IdSchema,
  team: ShortStringSchema.optional(),
  /** One line: the plan's title, "Approve a call of tool <tool>.", the intervention's reason… */
  summary: TextSchema,
  /** tool_approval: the tool and its input (redacted), and the rule's message. */
  tool: ShortStringSchema.optional(),
  input: JsonObjectSchema.optional(),
  reason: TextSchema.optional(),
  /** plan_approval: the plan's title. */
  plan_title: TextSchema.optional(),
  created_at: TimestampSchema,
  /** When the request decides itself (rejects, or approves for `on_expiry: approve`) if nobody does. */
  deadline: TimestampSchema.optional(),
});
export type WaitingRequest = z.infer<typeof WaitingRequestSchema>;

/**
 * The JSON body a webhook channel posts (`event: request.waiting`). `sent_at` is the time of this
 * attempt and equals the `X-AHP-Timestamp` header: being inside the signed body, it lets a
 * receiver refuse replays of old deliveries.
 */
export const NotificationBodySchema = z
  .strictObject({
    event: z.literal('request.waiting'),
    delivery_id: UuidSchema,
    channel: NotificationChannelNameSchema,
    attempt: z.int().positive(),
    sent_at: TimestampSchema,
    request: WaitingRequestSchema,
    /** The console's approvals page (`AHP_CONSOLE_URL` + `/approvals`), when the worker knows the console. */
    console_url: NotificationUrlSchema.optional(),
  })
  .meta({ id: 'NotificationBody', description: 'The JSON a webhook channel receives when a request waits for a person.' });
export type NotificationBody = z.infer<typeof NotificationBodySchema>;

/** One notification job of the `notifications` queue: one request to one channel. */
export const NotificationJobDataSchema = z.strictObject({
  delivery_id: UuidSchema,
  channel: NotificationChannelNameSchema,
  /** The channel as configured when the request was created (the secret's variable name, never the secret). */
  target: NotificationChannelSchema,
  request: WaitingRequestSchema,
  console_url: NotificationUrlSchema.optional(),
  config_version: z.int().positive().optional(),
});
export type NotificationJobData = z.infer<typeof NotificationJobDataSchema>;

/** One attempt of a delivery. */
export const NotificationAttemptSchema = z.strictObject({
  attempt: z.int().positive(),
  at: TimestampSchema,
  ok: z.boolean(),
  /** The receiver's HTTP status, when it answered. */
  status_code: z.int().min(100).max(599).optional(),
  error: TextSchema.optional(),
});
export type NotificationAttempt = z.infer<typeof NotificationAttemptSchema>;

/**
 * `pending` (queued or being retried), `delivered` (a 2xx), `dead` (given up: on the dead-letter
 * list), `skipped` (the request was decided, cancelled or expired before this delivery was sent).
 */
export const NOTIFICATION_DELIVERY_STATUSES = ['pending', 'delivered', 'dead', 'skipped'] as const;

/** A delivery as recorded: one request to one channel, with every attempt. */
export const NotificationDeliverySchema = z.strictObject({
  delivery_id: UuidSchema,
  channel: NotificationChannelNameSchema,
  channel_type: z.enum(NOTIFICATION_CHANNEL_TYPES),
  request_id: RequestIdSchema,
  request_type: RequestTypeSchema,
  status: z.enum(NOTIFICATION_DELIVERY_STATUSES),
  created_at: TimestampSchema,
  attempts: z.array(NotificationAttemptSchema),
});
export type NotificationDelivery = z.infer<typeof NotificationDeliverySchema>;

/** A delivery given up after its last attempt. */
export const NotificationDeadLetterSchema = z.strictObject({
  delivery_id: UuidSchema,
  channel: NotificationChannelNameSchema,
  request_id: RequestIdSchema,
  attempts: z.int().positive(),
  error: TextSchema,
  at: TimestampSchema,
});
export type NotificationDeadLetter = z.infer<typeof NotificationDeadLetterSchema>;

/** `GET /v1/operator/notifications/deliveries?limit=`. */
export const NotificationDeliveriesQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
export const NotificationDeliveriesResponseSchema = z
  .strictObject({
    deliveries: z.array(NotificationDeliverySchema),
    dead_letters: z.array(NotificationDeadLetterSchema),
  })
  .meta({ id: 'NotificationDeliveriesResponse', description: 'Recent notification deliveries (newest first) and the dead-letter list.' });
export type NotificationDeliveriesResponse = z.infer<typeof NotificationDeliveriesResponseSchema>;
