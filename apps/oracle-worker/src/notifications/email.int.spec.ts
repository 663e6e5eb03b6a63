// Starts: a real local SMTP server (smtp-server from npm, STARTTLS off, on port 0). The email
// channel end to end through nodemailer: the message and its decision links arrive, credentials
// come from the named variables, a missing variable and a permanent 5xx refusal dead-letter at
// once, and a server that is down fails the attempt for a retry.
import type { AddressInfo } from 'node:net';
import { UnrecoverableError } from 'bullmq';
import { SMTPServer } from 'smtp-server';
import { NotificationJobDataSchema, type NotificationDeadLetter, type NotificationJobData } from '@ahp/protocol';
import { verifyDecisionLink } from '@ahp/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotificationDelivery } from './deliver.js';
import { deliveryIdOf } from './dispatcher.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const SECRET = 'link-secret-for-the-email-test-0123456789';

interface Mail {
  from: string;
  to: string[];
  user: string | undefined;
  raw: string;
}

const mails: Mail[] = [];
let server: SMTPServer;
let port = 0;

beforeAll(async () => {
  server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'ahp' && auth.password === 'mail-pass') callback(null, { user: auth.username });
      else callback(new Error('invalid credentials'));
    },
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('nobody@')) {
        const refusal = new Error('no such mailbox') as Error & { responseCode: number };
        refusal.responseCode = 550;
        callback(refusal);
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          user: typeof session.user === 'string' ? session.user : undefined,
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function job(to: string[], extra: Record<string, unknown> = {}, at = port): NotificationJobData {
  return NotificationJobDataSchema.parse({
    delivery_id: deliveryIdOf(`req_mail_${to[0]}`, 'mail'),
    channel: 'mail',
    target: { type: 'email', host: '127.0.0.1', port: at, from: 'ahp@example.test', to, ...extra },
    request: { id: 'req_mail_1', type: 'tool_approval', sender: 'builder', team: 'payments', summary: 'Approve a call of tool deploy.', tool: 'deploy', input: { env: '<prod>' }, created_at: '2026-11-26T05:00:00.000Z' },
    console_url: 'https://ahp.example.test/approvals',
  });
}

function recorder() {
  const dead: NotificationDeadLetter[] = [];
  const delivered: string[] = [];
  return {
    dead,
    delivered,
    store: {
      skipped: async () => undefined,
      recordAttempt: async () => undefined,
      delivered: async (id: string) => void delivered.push(id),
      deadLetter: async (letter: NotificationDeadLetter) => void dead.push(letter),
    },
  };
}

/** The text part of a raw message, quoted-printable soft breaks joined. */
function textOf(raw: string): string {
  return raw.replace(/=\r\n/g, '').replace(/=3D/g, '=');
}

describe('the email channel (nodemailer against a local SMTP server)', () => {
  const deliver = (r: ReturnType<typeof recorder>, env: Record<string, string> = {}) =>
    createNotificationDelivery({ store: r.store, env, timeoutMs: 2_000, logger: silent, links: { secret: SECRET, ttlMs: 600_000 } });

  it('delivers the message with working decision links, authenticated with the credentials of the named variables', async () => {
    const r = recorder();
    await deliver(r, { MAIL_USER: 'ahp', MAIL_PASS: 'mail-pass' })(job(['ops@example.test', 'lead@example.test'], { auth: { user_env: 'MAIL_USER', pass_env: 'MAIL_PASS' } }), { attempt: 1, attempts: 3 });
    expect(r.delivered).toHaveLength(1);
    const mail = mails.find((m) => m.to.includes('ops@example.test'))!;
    expect(mail).toMatchObject({ from: 'ahp@example.test', to: ['ops@example.test', 'lead@example.test'], user: 'ahp' });
    const text = textOf(mail.raw);
    expect(text).toContain('Subject: [AHP] A tool call waits for approval: builder (payments)');
    expect(text).toMatch(/X-AHP-Request: req_mail_1/i);
    const approve = /Approve: (https:\/\/ahp\.example\.test\/decide#(v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+))/.exec(text);
    expect(approve?.[2]).toBeDefined();
    expect(verifyDecisionLink(SECRET, approve![2]!, Date.now())).toMatchObject({ ok: true, claims: { request_id: 'req_mail_1', decision: 'approve', channel: 'mail' } });
  });

  it('dead-letters at once when a credential variable is missing, without connecting', async () => {
    const r = recorder();
    const before = mails.length;
    await expect(deliver(r)(job(['ops2@example.test'], { auth: { user_env: 'MAIL_USER', pass_env: 'NOT_SET' } }), { attempt: 1, attempts: 5 })).rejects.toBeInstanceOf(UnrecoverableError);
    expect(r.dead).toEqual([expect.objectContaining({ attempts: 1, error: expect.stringContaining('MAIL_USER') })]);
    expect(mails.length).toBe(before);
  });

  it('dead-letters at once on a permanent refusal (550), and retries when the server is down', async () => {
    const refused = recorder();
    await expect(deliver(refused)(job(['nobody@example.test']), { attempt: 1, attempts: 5 })).rejects.toBeInstanceOf(UnrecoverableError);
    expect(refused.dead).toEqual([expect.objectContaining({ error: expect.stringContaining('550') })]);

    const down = recorder();
    // Port 1 on loopback: nothing listens, the connection is refused.
    const failure = deliver(down)(job(['ops3@example.test'], {}, 1), { attempt: 1, attempts: 5 });
    await expect(failure).rejects.toThrow();
    await expect(failure).rejects.not.toBeInstanceOf(UnrecoverableError);
    expect(down.dead).toEqual([]);
  });
});
