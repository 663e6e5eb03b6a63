/**
 * Delivering one notification job: POST to the channel's URL, record the attempt, and after the
 * last failed attempt put the delivery on the dead-letter list. Runs on the notification queue's
 * worker (BullMQ retries with exponential backoff between attempts), never where a decision waits.
 *
 * Headers of a webhook: `X-AHP-Delivery` (the delivery id, the same on every attempt: receivers
 * dedupe on it), `X-AHP-Event`, `X-AHP-Attempt`, `X-AHP-Timestamp` (epoch seconds of `sent_at`)
 * and `X-AHP-Signature` (sign.ts). Redirects are not followed (a 3xx is a failed attempt), so a
 * receiver cannot bounce the body elsewhere.
 */
import { UnrecoverableError } from 'bullmq';
import type { DecisionLinks, EmailChannel, NotificationAttempt, ParsedNotificationJobData } from '@ahp/protocol';
import type { Logger, NotificationProcessor, NotificationStore } from '@ahp/store';
import { mintDecisionLinks, type DecisionLinkMinting } from './links.js';
import { sendEmail, type EmailSender } from './email.js';
import { sendPush, type PushContext } from './push.js';
import { slackMessage, webhookBody } from './message.js';
import { signNotification } from './sign.js';

export interface NotificationDeliveryOptions {
  readonly store: Pick<NotificationStore, 'recordAttempt' | 'delivered' | 'deadLetter' | 'skipped'>;
  /**
   * Whether the request still waits for a person. A request decided, cancelled or expired before
   * an attempt is not announced any more (a receiver that was down would otherwise get stale
   * "waits" messages once it is back). When the check itself fails, the attempt goes ahead.
   */
  readonly stillWaiting?: (requestId: string) => Promise<boolean>;
  /** Where `secret_env` is looked up: the worker's environment. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** How long one attempt waits for the receiver. */
  readonly timeoutMs: number;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** The HTTP client; `fetch` of Node. */
  readonly fetch?: typeof fetch;
  /** Decision links (secret and lifetime); without it notifications carry none. */
  readonly links?: DecisionLinkMinting;
  /** Sends an email; nodemailer over SMTP by default (email.ts). */
  readonly sendEmail?: EmailSender;
  /** Web Push: subscriptions, VAPID keys and subject; without it a push channel dead-letters. */
  readonly push?: Omit<PushContext, 'timeoutMs' | 'links'>;
  /** A per-agent digest's count, read when it is sent (notification-throttle's `beyond`); without it a digest says "more". */
  readonly digestCount?: (agentId: string, windowStartMs: number) => Promise<number>;
}

/** Errors longer than this are cut in records (a receiver's error page is not worth keeping whole). */
const MAX_ERROR_CHARS = 300;

/** A failed attempt, with what the receiver answered when it did. */
class AttemptFailed extends Error {
  constructor(
    message: string,
    readonly statusCode?: number,
  ) {
    super(message);
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    const detail = cause instanceof Error && cause.message !== '' ? `: ${cause.message}` : '';
    return `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}${detail}`.slice(0, MAX_ERROR_CHARS);
  }
  return String(error).slice(0, MAX_ERROR_CHARS);
}

/** The processor of the notification queue. */
export function createNotificationDelivery(options: NotificationDeliveryOptions): NotificationProcessor {
  const { store, env, timeoutMs, logger } = options;
  const now = options.now ?? (() => new Date());
  const post = options.fetch ?? fetch;
  const mail = options.sendEmail ?? sendEmail;

  /** The request of one attempt: URL, headers and raw body. Throws UnrecoverableError when the channel cannot be used at all. */
  function build(job: ParsedNotificationJobData, attempt: number, sentAt: Date, links: DecisionLinks | undefined): { headers: Record<string, string>; body: string } {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'ahp-notifications/1',
      'x-ahp-delivery': job.delivery_id,
      'x-ahp-event': 'request.waiting',
      'x-ahp-attempt': String(attempt),
      'x-ahp-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
    };
    if (job.target.type === 'slack') return { headers, body: JSON.stringify(slackMessage(job, links)) };
    if (job.target.type !== 'webhook') throw new UnrecoverableError(`channel ${job.channel} is not an HTTP channel`);
    const secret = env[job.target.secret_env];
    // Fail closed: an unsigned webhook would be indistinguishable from a forged one; retrying will not set the variable.
    if (secret === undefined || secret === '') throw new UnrecoverableError(`the secret variable ${job.target.secret_env} of channel ${job.channel} is not set on this worker`);
    const body = JSON.stringify(webhookBody(job, attempt, sentAt, links));
    return { headers: { ...headers, 'x-ahp-signature': signNotification(secret, body) }, body };
  }

  /** One attempt: the receiver's HTTP status (email: undefined), or a thrown failure. */
  async function send(job: ParsedNotificationJobData, attempt: number, sentAt: Date): Promise<number | undefined> {
    if (job.target.type === 'push') {
      if (options.push === undefined) throw new UnrecoverableError('this worker does not send Web Push');
      // Links are minted per receiving operator inside.
      const outcome = await sendPush(job.target, job, { ...options.push, timeoutMs, links: options.links }, sentAt);
      logger.info({ deliveryId: job.delivery_id, requestId: job.request.id, sent: outcome.sent, gone: outcome.gone, failed: outcome.failed.length }, 'push notification sent');
      return undefined;
    }
    // Fresh links per attempt: each is single-use and expires from the time it was sent. A digest is about many requests: none.
    const links = options.links === undefined || job.digest !== undefined ? undefined : mintDecisionLinks(options.links, job, sentAt);
    if (job.target.type === 'email') {
      await mail(job.target as EmailChannel, job, links, { env, timeoutMs });
      return undefined;
    }
    const { headers, body } = build(job, attempt, sentAt, links);
    const url = job.target.url;
    let response: Response;
    try {
      response = await post(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      throw new AttemptFailed(describe(error));
    }
    // The body is not needed; reading it releases the connection.
    await response.arrayBuffer().catch(() => undefined);
    if (response.status < 200 || response.status > 299) throw new AttemptFailed(`the receiver answered ${response.status}`, response.status);
    return response.status;
  }

  async function waits(requestId: string): Promise<boolean> {
    if (options.stillWaiting === undefined) return true;
    try {
      return await options.stillWaiting(requestId);
    } catch (error) {
      logger.warn({ requestId, error: describe(error) }, 'could not read whether the request still waits; notifying anyway');
      return true;
    }
  }

  /** A digest with its count as it stands now (the window has ended); undefined when it counts nothing. */
  async function counted(job: ParsedNotificationJobData): Promise<ParsedNotificationJobData | undefined> {
    if (job.digest === undefined || options.digestCount === undefined) return job;
    const more = await options.digestCount(job.request.sender, Date.parse(job.digest.window_start));
    return more > 0 ? { ...job, digest: { ...job.digest, more } } : undefined;
  }

  return async (queued, info) => {
    const fields = { deliveryId: queued.delivery_id, channel: queued.channel, requestId: queued.request.id, tier: queued.tier, attempt: info.attempt, attempts: info.attempts };
    const job = await counted(queued);
    if (job === undefined) {
      await store.skipped(queued.delivery_id);
      logger.info(fields, 'notification digest skipped: it counts no request');
      return;
    }
    // A digest is about every request of the window, not only the one it carries.
    if (job.digest === undefined && !(await waits(job.request.id))) {
      await store.skipped(job.delivery_id);
      logger.info(fields, 'notification skipped: the request no longer waits');
      return;
    }
    const sentAt = now();
    let record: NotificationAttempt;
    let failure: unknown;
    try {
      const status = await send(job, info.attempt, sentAt);
      record = { attempt: info.attempt, at: sentAt.toISOString(), ok: true, ...(status === undefined ? {} : { status_code: status }) };
    } catch (error) {
      failure = error;
      const statusCode = error instanceof AttemptFailed ? error.statusCode : undefined;
      record = { attempt: info.attempt, at: sentAt.toISOString(), ok: false, error: describe(error), ...(statusCode === undefined ? {} : { status_code: statusCode }) };
    }
    await store.recordAttempt(job.delivery_id, record);
    if (failure === undefined) {
      await store.delivered(job.delivery_id);
      logger.info({ ...fields, statusCode: record.status_code }, 'notification delivered');
      return;
    }
    const last = failure instanceof UnrecoverableError || info.attempt >= info.attempts;
    if (last) {
      await store.deadLetter({
        delivery_id: job.delivery_id,
        channel: job.channel,
        request_id: job.request.id,
        attempts: info.attempt,
        error: record.error ?? 'failed',
        at: now().toISOString(),
      });
      logger.error({ ...fields, error: record.error }, 'notification given up: moved to the dead-letter list');
    } else {
      logger.warn({ ...fields, error: record.error }, 'notification attempt failed; it will be retried');
    }
    throw failure;
  };
}
