/**
 * The push channel: Web Push (RFC 8030, VAPID RFC 8292, payloads encrypted with RFC 8291) to
 * every browser each of the channel's operators subscribed, through the web-push library. Each
 * operator's message carries decision links bound to that operator.
 *
 * One attempt succeeds when at least one message was accepted by a push service (a 2xx). A
 * subscription the push service reports gone (404 or 410: the browser unsubscribed, the app was
 * removed) is deleted and does not count as a failure. An attempt fails, and is retried, when no
 * message was accepted and some push service failed; with no subscription at all the delivery
 * is dead-lettered at once (nobody can receive it until an operator turns notifications on).
 */
import { UnrecoverableError } from 'bullmq';
import webpush from 'web-push';
import type { ParsedNotificationJobData, PushChannel, PushPayload } from '@ahp/protocol';
import type { PushSubscriptionStore, VapidKeys } from '@ahp/store';
import { mintDecisionLinks, type DecisionLinkMinting } from './links.js';
import { digestText, titleOf } from './message.js';

export interface PushContext {
  readonly subscriptions: Pick<PushSubscriptionStore, 'list' | 'remove'>;
  readonly vapid: VapidKeys;
  /** VAPID `sub`: a mailto: or https: contact. */
  readonly subject: string;
  readonly timeoutMs: number;
  readonly links: DecisionLinkMinting | undefined;
  /** Accept http:// endpoints (a local stub in tests); production push services are https. @defaultValue false */
  readonly allowHttp?: boolean;
  /** The HTTP client; Node's fetch. */
  readonly fetch?: typeof fetch;
}

/** What one attempt did: messages accepted, subscriptions removed as gone, failures. */
export interface PushOutcome {
  readonly sent: number;
  readonly gone: number;
  readonly failed: string[];
}

/** A push service's refusal, with its status. */
class PushRefused extends Error {
  constructor(readonly statusCode: number) {
    super(`answered ${statusCode}`);
  }
}

/** Encrypts and signs with web-push, posts with fetch. */
async function post(subscription: Parameters<typeof webpush.generateRequestDetails>[0], payload: string, context: PushContext, topic: string): Promise<void> {
  const endpoint = new URL(subscription.endpoint);
  if (endpoint.protocol !== 'https:' && !(context.allowHttp === true && endpoint.protocol === 'http:')) throw new Error('the endpoint is not https');
  const details = webpush.generateRequestDetails(subscription, payload, {
    vapidDetails: { subject: context.subject, publicKey: context.vapid.publicKey, privateKey: context.vapid.privateKey },
    TTL: 600,
    urgency: 'high',
    topic,
    contentEncoding: 'aes128gcm',
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(details.headers)) headers[name] = String(value);
  const response = await (context.fetch ?? fetch)(details.endpoint, {
    method: details.method,
    headers,
    body: new Uint8Array(details.body),
    redirect: 'manual',
    signal: AbortSignal.timeout(context.timeoutMs),
  });
  await response.arrayBuffer().catch(() => undefined);
  if (response.status < 200 || response.status > 299) throw new PushRefused(response.status);
}

function payloadFor(job: ParsedNotificationJobData, operator: string, context: PushContext, sentAt: Date): PushPayload {
  // A digest is about many requests: no links to decide one.
  const links = context.links === undefined || job.digest !== undefined ? undefined : mintDecisionLinks(context.links, job, sentAt, operator);
  return {
    title: titleOf(job).slice(0, 200),
    body: digestText(job).slice(0, 300),
    request_id: job.request.id,
    ...(job.console_url === undefined ? {} : { url: job.console_url }),
    ...(links === undefined ? {} : { links }),
  };
}

export async function sendPush(channel: PushChannel, job: ParsedNotificationJobData, context: PushContext, sentAt: Date): Promise<PushOutcome> {
  let sent = 0;
  let gone = 0;
  let subscriptions = 0;
  const failed: string[] = [];
  for (const operator of channel.operators) {
    const stored = await context.subscriptions.list(operator);
    subscriptions += stored.length;
    for (const { subscription } of stored) {
      const body = JSON.stringify(payloadFor(job, operator, context, sentAt));
      try {
        // The topic lets a push service replace an undelivered message about the same request.
        await post(subscription, body, context, job.request.id.replace(/[^A-Za-z0-9_-]/g, '').slice(-32));
        sent += 1;
      } catch (error) {
        const status = error instanceof PushRefused ? error.statusCode : undefined;
        if (status === 404 || status === 410) {
          await context.subscriptions.remove(operator, subscription.endpoint);
          gone += 1;
        } else {
          const reason = error instanceof Error ? `${error.name === 'Error' || error instanceof PushRefused ? '' : `${error.name}: `}${error.message}` : String(error);
          failed.push(`${new URL(subscription.endpoint).host}: ${reason}`);
        }
      }
    }
  }
  if (subscriptions === 0) throw new UnrecoverableError(`no operator of channel ${job.channel} (${channel.operators.join(', ')}) has turned on push notifications`);
  if (sent === 0 && failed.length > 0) throw new Error(`no push service accepted the message: ${failed.join('; ')}`.slice(0, 300));
  return { sent, gone, failed };
}
