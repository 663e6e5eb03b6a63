/**
 * The email channel: one message per attempt over SMTP with nodemailer. A transport per attempt
 * (no pool): notifications are rare, and a fresh connection picks up a changed server at once.
 *
 * Credentials come from the worker's environment (`auth.user_env`, `auth.pass_env`); a variable
 * that is not set dead-letters the delivery at once (retrying will not set it). A permanent SMTP
 * refusal (a 5xx reply: unknown recipient, relay denied) does too; anything else (connection
 * refused, a 4xx, a timeout) fails the attempt and BullMQ retries it.
 */
import { UnrecoverableError } from 'bullmq';
import { createTransport } from 'nodemailer';
import type { DecisionLinks, EmailChannel, ParsedNotificationJobData } from '@ahp/protocol';
import { emailMessage } from './message.js';

export interface EmailSendContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Connection, greeting and socket timeouts of the attempt. */
  readonly timeoutMs: number;
}

/** Sends the notification of `job` to `channel`; resolves when the server accepted it for every recipient. */
export type EmailSender = (channel: EmailChannel, job: ParsedNotificationJobData, links: DecisionLinks | undefined, context: EmailSendContext) => Promise<void>;

function credential(env: EmailSendContext['env'], name: string, channel: string): string {
  const value = env[name];
  if (value === undefined || value === '') throw new UnrecoverableError(`the variable ${name} of channel ${channel} is not set on this worker`);
  return value;
}

export const sendEmail: EmailSender = async (channel, job, links, { env, timeoutMs }) => {
  const auth = channel.auth === undefined ? undefined : { user: credential(env, channel.auth.user_env, job.channel), pass: credential(env, channel.auth.pass_env, job.channel) };
  const transport = createTransport({
    host: channel.host,
    port: channel.port,
    secure: channel.secure,
    requireTLS: channel.require_tls,
    ...(auth === undefined ? {} : { auth }),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  const message = emailMessage(job, links);
  try {
    const info = await transport.sendMail({
      from: channel.from,
      to: channel.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      headers: { 'X-AHP-Delivery': job.delivery_id, 'X-AHP-Request': job.request.id, 'X-AHP-Event': 'request.waiting' },
    });
    if (info.rejected.length > 0) throw new Error(`the SMTP server refused ${info.rejected.length} recipient(s)`);
  } catch (error) {
    const code = (error as { responseCode?: unknown }).responseCode;
    if (typeof code === 'number' && code >= 500 && code < 600) throw new UnrecoverableError(`the SMTP server refused the message (${code}): ${(error as Error).message}`.slice(0, 300));
    throw error;
  } finally {
    transport.close();
  }
};
