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
import { ProtocolStateSchema, REQUEST_TYPES, RequestIdSchema, RequestTypeSchema, type RequestType } from './request.js';

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
 * The one operator a channel reaches (a person's email, a direct message): its decision links
 * are then bound to that operator, and nobody else can use them. Without it, a link can be used
 * by any operator who may decide the request (role and team scope, as in the console).
 */
export const ChannelOperatorSchema = IdSchema.meta({ id: 'ChannelOperator', description: 'The operator id decision links of this channel are bound to.' });

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
    operator: ChannelOperatorSchema.optional(),
    description: TextSchema.optional(),
  })
  .meta({ id: 'WebhookChannel', description: 'JSON posted to url, signed (HMAC-SHA256) with the secret in the variable secret_env.' });
export type WebhookChannel = z.infer<typeof WebhookChannelSchema>;

/** A Slack-compatible incoming webhook: a message (text and a button to the console). The URL is the secret. */
export const SlackChannelSchema = z
  .strictObject({
    type: z.literal('slack'),
    url: NotificationUrlSchema,
    operator: ChannelOperatorSchema.optional(),
    description: TextSchema.optional(),
  })
  .meta({ id: 'SlackChannel', description: 'A Slack-compatible incoming-webhook URL: a message with a link button to the console.' });
export type SlackChannel = z.infer<typeof SlackChannelSchema>;

/** An email address: a conservative shape (no display name, no spaces, one @, a dotted domain). */
export const EmailAddressSchema = z
  .string()
  .max(254)
  .regex(/^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/, 'must be an email address such as "ops@example.com"');

/** A host name or IP address of an SMTP server (no scheme, no port). */
const SmtpHostSchema = z.string().min(1).max(253).regex(/^[A-Za-z0-9.:-]+$/, 'must be a host name or an IP address, e.g. "smtp.example.com"');

/**
 * Email over SMTP (nodemailer on the workers). `secure: true` is TLS from the first byte (port
 * 465); otherwise the connection is upgraded with STARTTLS when the server offers it, and
 * `require_tls: true` refuses to send without it. Credentials are never in the configuration:
 * `auth` names the workers' variables that hold them.
 */
export const EmailChannelSchema = z
  .strictObject({
    type: z.literal('email'),
    host: SmtpHostSchema,
    port: z.int().min(1).max(65_535).default(587),
    secure: z.boolean().default(false),
    require_tls: z.boolean().default(false),
    from: EmailAddressSchema,
    to: boundedArray(EmailAddressSchema, 50).min(1),
    auth: z.strictObject({ user_env: EnvVariableNameSchema, pass_env: EnvVariableNameSchema }).optional(),
    operator: ChannelOperatorSchema.optional(),
    description: TextSchema.optional(),
  })
  .meta({ id: 'EmailChannel', description: 'Email over SMTP: host, port (587), secure (TLS from the start), from, to; auth names the variables holding the credentials.' });
export type EmailChannel = z.infer<typeof EmailChannelSchema>;

/**
 * Web Push to the consoles these operators installed on their phones (or any browser where they
 * turned notifications on): every push subscription of each operator gets the notification, with
 * decision links bound to that operator.
 */
export const PushChannelSchema = z
  .strictObject({
    type: z.literal('push'),
    operators: boundedArray(IdSchema, 50).min(1),
    description: TextSchema.optional(),
  })
  .meta({ id: 'PushChannel', description: "Web Push to the operators' subscribed browsers (the console as a PWA)." });
export type PushChannel = z.infer<typeof PushChannelSchema>;

export const NotificationChannelSchema = z.discriminatedUnion('type', [WebhookChannelSchema, SlackChannelSchema, EmailChannelSchema, PushChannelSchema]);
export type NotificationChannel = z.infer<typeof NotificationChannelSchema>;
export const NOTIFICATION_CHANNEL_TYPES = ['webhook', 'slack', 'email', 'push'] as const;

const TeamSelectorSchema = z.string().regex(/^(\*|[A-Za-z0-9._:-]{1,128})$/, 'must be a team id (letters, digits and . _ : -) or "*" for every team');

const ESCALATION_DELAY = /^([1-9][0-9]{0,5})(s|m|h)$/;
const ESCALATION_UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000 };

/** Milliseconds of an escalation delay (`90s`, `5m`, `2h`); undefined for anything else. */
export function escalationDelayMs(value: string): number | undefined {
  const match = ESCALATION_DELAY.exec(value);
  if (match === null) return undefined;
  return Number(match[1]) * (ESCALATION_UNIT_MS[match[2] ?? ''] ?? Number.NaN);
}

/**
 * One escalation tier: when the request still waits `after` its creation, `channels` are
 * notified. `role: admin` binds the tier's decision links to admins (the last tier is usually
 * "the admins"); otherwise any operator who may decide the request can use them.
 */
export const EscalationTierSchema = z
  .strictObject({
    after: z.string().regex(ESCALATION_DELAY, 'must be a delay such as "90s", "5m" or "2h"'),
    channels: boundedArray(NotificationChannelNameSchema, NOTIFICATIONS_LIMITS.maxChannels).min(1),
    role: z.literal('admin').optional(),
  })
  .meta({ id: 'EscalationTier', description: 'After this delay without a decision, notify these channels (the next tier).' });
export type EscalationTier = z.infer<typeof EscalationTierSchema>;

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
    /** Next tiers, in increasing `after`: the team's lead, then the admins. */
    escalate: boundedArray(EscalationTierSchema, 5).optional(),
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
    const unknown = (channel: string, path: (string | number)[]) => {
      if (!known.has(channel)) {
        ctx.addIssue({ code: 'custom', path, message: `unknown channel "${channel}" (defined: ${names.length === 0 ? 'none' : names.join(', ')})` });
      }
    };
    config.routes.forEach((route, index) => {
      route.channels.forEach((channel, at) => unknown(channel, ['routes', index, 'channels', at]));
      let previous = 0;
      (route.escalate ?? []).forEach((tier, t) => {
        tier.channels.forEach((channel, at) => unknown(channel, ['routes', index, 'escalate', t, 'channels', at]));
        const ms = escalationDelayMs(tier.after) ?? 0;
        if (ms <= previous) ctx.addIssue({ code: 'custom', path: ['routes', index, 'escalate', t, 'after'], message: 'each tier must come later than the one before it' });
        previous = ms;
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

/** A tier of escalation routed for a request: when, which channels, and who its links are for. */
export interface RoutedEscalation {
  /** 1 for the first tier after the initial notification. */
  readonly tier: number;
  readonly afterMs: number;
  readonly role: 'admin' | undefined;
  readonly channels: { name: string; channel: NotificationChannel }[];
}

/**
 * The escalation tiers of `subject`: the tiers of every matching route, merged by position
 * (tier 1 of every route is tier 1), each channel once per tier, at the earliest `after` any
 * matching route gives that tier. A tier with `role: admin` in any route binds its links to admins.
 */
export function routeEscalation(config: NotificationsConfig | undefined, subject: NotificationSubject): RoutedEscalation[] {
  if (config === undefined) return [];
  const tiers: { afterMs: number; role: 'admin' | undefined; names: string[] }[] = [];
  for (const route of config.routes) {
    if (!routeMatches(route, subject)) continue;
    (route.escalate ?? []).forEach((tier, index) => {
      const afterMs = escalationDelayMs(tier.after) ?? 0;
      const existing = tiers[index];
      if (existing === undefined) {
        tiers[index] = { afterMs, role: tier.role, names: [...tier.channels] };
        return;
      }
      existing.afterMs = Math.min(existing.afterMs, afterMs);
      if (tier.role === 'admin') existing.role = 'admin';
      for (const name of tier.channels) if (!existing.names.includes(name)) existing.names.push(name);
    });
  }
  return tiers.map((tier, index) => ({
    tier: index + 1,
    afterMs: tier.afterMs,
    role: tier.role,
    channels: tier.names.flatMap((name) => {
      const channel = config.channels[name];
      return channel === undefined ? [] : [{ name, channel }];
    }),
  }));
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
 * The one-tap decision links of a notification: each opens the console's approval card for the
 * request with that decision ready; a signed-in operator confirms it in one tap. Signed,
 * single-use, short-lived and bound to the request, the decision and the channel's operator or
 * tier. A link alone never decides: the console needs the operator's own session.
 */
export const DecisionLinksSchema = z
  .strictObject({
    approve: NotificationUrlSchema,
    reject: NotificationUrlSchema,
    expires_at: TimestampSchema,
  })
  .meta({ id: 'DecisionLinks', description: 'Signed, single-use links to approve or reject the request from the console.' });
export type DecisionLinks = z.infer<typeof DecisionLinksSchema>;

/**
 * A digest of the per-agent notification throttle (docs/notifications.md, "Throttle per agent"):
 * the agent opened more requests to operators in one window than are notified one by one. Sent
 * once, when the window ends, in place of the first request over the limit (the job's `request`,
 * which starts the count); `more` is counted when the digest is sent.
 */
export const NotificationDigestSchema = z.strictObject({
  /** Requests of this agent notified one by one in the window. */
  notified: z.int().positive(),
  window_start: TimestampSchema,
  window_end: TimestampSchema,
  /** The agent's requests of the window that were not notified one by one (filled in when sent). */
  more: z.int().positive().optional(),
});
export type NotificationDigest = z.infer<typeof NotificationDigestSchema>;

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
    /** 0: the first notification; 1, 2…: escalation tiers (the request still waited after their delay). */
    tier: z.int().min(0).max(10).optional(),
    /** One-tap decision links (docs/notifications.md "Decision links"), when the worker knows the console. */
    links: DecisionLinksSchema.optional(),
    /** A per-agent digest instead of one request (then `request` is the first one it counts, and there are no links). */
    digest: NotificationDigestSchema.optional(),
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
  /** 0: the first notification; 1, 2…: an escalation tier, queued delayed when the request was created. */
  tier: z.int().min(0).max(10).default(0),
  /** `admin`: the tier's links are for admins only. */
  role: z.literal('admin').optional(),
  /** A per-agent digest, queued delayed to the end of its window. */
  digest: NotificationDigestSchema.optional(),
});
export type NotificationJobData = z.output<typeof NotificationJobDataSchema>;
/** A job as read back (defaults applied): the same as {@link NotificationJobData}. */
export type ParsedNotificationJobData = NotificationJobData;
/** A job as queued (defaults may be left out). */
export type NotificationJobInput = z.input<typeof NotificationJobDataSchema>;

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
  /** Escalation tier (absent: 0, the first notification). */
  tier: z.int().min(0).max(10).optional(),
  /** When a delayed (escalation) delivery is due. */
  due_at: TimestampSchema.optional(),
  /** Operators who replayed it from the dead-letter list, latest last. */
  replayed_by: z.array(IdSchema).max(50).optional(),
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

/** `POST /v1/operator/notifications/dead-letters/:deliveryId/replay`: the delivery queued again. */
export const NotificationReplayResponseSchema = z
  .strictObject({ delivery_id: UuidSchema, request_id: RequestIdSchema, channel: NotificationChannelNameSchema, status: z.literal('pending') })
  .meta({ id: 'NotificationReplayResponse', description: 'A dead delivery queued again (its attempts start over).' });
export type NotificationReplayResponse = z.infer<typeof NotificationReplayResponseSchema>;

// --- decision links ------------------------------------------------------------------------------

export const LINK_DECISIONS = ['approve', 'reject'] as const;
export const LinkDecisionSchema = z.enum(LINK_DECISIONS);
export type LinkDecision = z.infer<typeof LinkDecisionSchema>;

/**
 * What a decision link's token says, signed by the server (HMAC-SHA256 with the link secret):
 * the request, the decision, who may use it (`operator`: one operator; `role: admin`: admins;
 * neither: any operator who may decide the request), when it expires (`exp`, epoch seconds), and
 * `jti`, the id that makes it single-use.
 */
export const DecisionLinkClaimsSchema = z.strictObject({
  v: z.literal(1),
  jti: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/),
  request_id: RequestIdSchema,
  decision: LinkDecisionSchema,
  channel: NotificationChannelNameSchema,
  tier: z.int().min(0).max(10),
  operator: IdSchema.optional(),
  role: z.literal('admin').optional(),
  exp: z.int().positive(),
});
export type DecisionLinkClaims = z.infer<typeof DecisionLinkClaimsSchema>;

/** A token as it travels: `v1.<claims, base64url JSON>.<HMAC, base64url>`. */
export const DecisionLinkTokenSchema = z.string().max(2048).regex(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'is not a decision link token');

/** Body of `POST /v1/operator/links/inspect` and `…/links/redeem`. */
export const DecisionLinkBodySchema = z.strictObject({ token: DecisionLinkTokenSchema });
export type DecisionLinkBody = z.infer<typeof DecisionLinkBodySchema>;

/**
 * Why a link cannot be used: `invalid` (not signed by this server, or altered), `expired`,
 * `used` (already redeemed once), `not_yours` (bound to another operator, or to admins).
 * Answered as `E_FORBIDDEN` with `details.link` set to one of these.
 */
export const LINK_REFUSALS = ['invalid', 'expired', 'used', 'not_yours'] as const;
export type LinkRefusal = (typeof LINK_REFUSALS)[number];

/** What a valid link is for. */
export const DecisionLinkInfoSchema = z.strictObject({
  request_id: RequestIdSchema,
  decision: LinkDecisionSchema,
  channel: NotificationChannelNameSchema,
  tier: z.int().min(0).max(10),
  expires_at: TimestampSchema,
  operator: IdSchema.optional(),
  role: z.literal('admin').optional(),
});
export type DecisionLinkInfo = z.infer<typeof DecisionLinkInfoSchema>;

/** Answer of `POST /v1/operator/links/inspect`: what a usable link would do and the request it is for (reading it does not use it). */
export const DecisionLinkInspectResponseSchema = z
  .strictObject({ link: DecisionLinkInfoSchema, request: ProtocolStateSchema })
  .meta({ id: 'DecisionLinkInspectResponse', description: 'What a valid, unused decision link is for, and its waiting request.' });
export type DecisionLinkInspectResponse = z.infer<typeof DecisionLinkInspectResponseSchema>;

// --- Web Push ------------------------------------------------------------------------------------

const Base64UrlSchema = z.string().min(1).max(512).regex(/^[A-Za-z0-9_-]+={0,2}$/, 'must be base64url');

/**
 * A browser's push subscription (`PushSubscription.toJSON()`): where the push service takes
 * messages for it, and the keys its payloads are encrypted to (RFC 8291).
 */
export const PushSubscriptionSchema = z
  .object({
    endpoint: NotificationUrlSchema,
    expirationTime: z.number().nullable().optional(),
    keys: z.strictObject({ p256dh: Base64UrlSchema, auth: Base64UrlSchema }),
  })
  .strip()
  .meta({ id: 'PushSubscription', description: "A browser's Web Push subscription: endpoint and keys." });
export type PushSubscriptionData = z.infer<typeof PushSubscriptionSchema>;

/** Body of `POST /v1/operator/push/subscriptions/remove`. */
export const PushUnsubscribeBodySchema = z.strictObject({ endpoint: NotificationUrlSchema });

/** A stored subscription of an operator. */
export const StoredPushSubscriptionSchema = z.strictObject({
  subscription: PushSubscriptionSchema,
  operator: IdSchema,
  created_at: TimestampSchema,
});
export type StoredPushSubscription = z.infer<typeof StoredPushSubscriptionSchema>;

/** Answer of `GET /v1/operator/push/vapid-key`: the application server key browsers subscribe with. */
export const VapidKeyResponseSchema = z.strictObject({ public_key: Base64UrlSchema }).meta({ id: 'VapidKeyResponse' });
export type VapidKeyResponse = z.infer<typeof VapidKeyResponseSchema>;

/** Answer of `GET /v1/operator/push/subscriptions` (the caller's own). */
export const PushSubscriptionsResponseSchema = z
  .strictObject({ subscriptions: z.array(z.strictObject({ endpoint: NotificationUrlSchema, created_at: TimestampSchema })) })
  .meta({ id: 'PushSubscriptionsResponse' });
export type PushSubscriptionsResponse = z.infer<typeof PushSubscriptionsResponseSchema>;

/** What a push message carries (encrypted to the browser): what the service worker shows and opens. */
export const PushPayloadSchema = z.strictObject({
  title: TextSchema,
  body: TextSchema,
  request_id: RequestIdSchema,
  /** Opened on a tap of the notification itself. */
  url: NotificationUrlSchema.optional(),
  /** Decision links bound to the receiving operator, for the notification's Approve / Reject actions. */
  links: DecisionLinksSchema.optional(),
});
export type PushPayload = z.infer<typeof PushPayloadSchema>;
