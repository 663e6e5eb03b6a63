import { createRequest, NotificationBodySchema, NotificationJobDataSchema, NotificationsConfigSchema, routeEscalation, type JsonObject, type ProtocolState } from '@ahp/protocol';
import { verifyDecisionLink } from '@ahp/store';
import { describe, expect, it } from 'vitest';
import { deliveryIdOf } from './dispatcher.js';
import { mintDecisionLinks } from './links.js';
import { emailMessage, slackMessage, waitingRequestOf, webhookBody } from './message.js';

const NOW = '2026-11-26T05:00:00.000Z';

function toolApproval(input: JsonObject): ProtocolState {
  return createRequest({
    requestId: 'req_1',
    sender: 'builder',
    target: { kind: 'operators' },
    now: NOW,
    deadline: '2026-11-26T05:15:00.000Z',
    type: 'tool_approval',
    payload: { tool: 'bash', input, input_digest: 'a'.repeat(64), reason: 'rm -rf needs an approval' },
  });
}

describe('waitingRequestOf', () => {
  it('tells the tool, its input redacted as the signal log redacts it, the team and the deadline', () => {
    const request = waitingRequestOf(toolApproval({ command: 'curl -H "Authorization: Bearer sk-live-abcdefghijklmnop1234" x', api_key: 'k-123', cwd: '/repo' }), 'payments');
    expect(request).toMatchObject({ id: 'req_1', type: 'tool_approval', sender: 'builder', team: 'payments', tool: 'bash', deadline: '2026-11-26T05:15:00.000Z', summary: 'Approve a call of tool bash.' });
    expect(request.input).toMatchObject({ api_key: '[redacted]', cwd: '/repo' });
    expect(JSON.stringify(request)).not.toContain('sk-live-abcdefghijklmnop1234');
    expect(JSON.stringify(request)).not.toContain('k-123');
  });

  it('gives a plan approval its title and no steps', () => {
    const state = createRequest({
      requestId: 'req_2',
      sender: 'planner',
      target: { kind: 'operators' },
      now: NOW,
      type: 'plan_approval',
      payload: { plan: { title: 'Migrate the billing tables', steps: [{ id: 's1', description: 'Copy the rows', dependencies: [], status: 'pending', tools_expected: [] }] } },
    });
    const request = waitingRequestOf(state, undefined);
    expect(request).toEqual({ id: 'req_2', type: 'plan_approval', sender: 'planner', summary: 'Migrate the billing tables', plan_title: 'Migrate the billing tables', created_at: NOW });
  });
});

describe('webhook body and Slack message', () => {
  const job = NotificationJobDataSchema.parse({
    delivery_id: deliveryIdOf('req_1', 'on-call'),
    channel: 'on-call',
    target: { type: 'slack', url: 'https://hooks.slack.example/services/T/B/X' },
    request: waitingRequestOf(toolApproval({ command: 'rm -rf <build> & more' }), 'payments'),
    console_url: 'https://ahp.example.com/approvals',
  });

  it('the body parses with the protocol schema and carries the link to the approvals page', () => {
    const body = NotificationBodySchema.parse(webhookBody(job, 2, new Date(NOW)));
    expect(body).toMatchObject({ event: 'request.waiting', attempt: 2, sent_at: NOW, console_url: 'https://ahp.example.com/approvals', request: { id: 'req_1' } });
  });

  it('the Slack message has a text, escaped agent text and a button to the console', () => {
    const message = slackMessage(job) as { text: string; blocks: { type: string; text?: { text: string }; elements?: { url: string }[] }[] };
    expect(message.text).toContain('A tool call waits for approval: builder (payments)');
    expect(message.blocks[0]?.text?.text).toContain('rm -rf &lt;build&gt; &amp; more');
    expect(message.blocks[1]).toMatchObject({ type: 'actions', elements: [{ url: 'https://ahp.example.com/approvals' }] });
  });

  it('delivery ids are UUIDs, one per request and channel', () => {
    expect(deliveryIdOf('req_1', 'on-call')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(deliveryIdOf('req_1', 'on-call')).toBe(deliveryIdOf('req_1', 'on-call'));
    expect(deliveryIdOf('req_1', 'chat')).not.toBe(deliveryIdOf('req_1', 'on-call'));
  });
});

describe('decision links in notifications', () => {
  const secret = 'k'.repeat(40);
  const base = {
    delivery_id: deliveryIdOf('req_1', 'lead', 1),
    channel: 'lead',
    target: { type: 'slack', url: 'https://hooks.slack.example/services/T/B/X', operator: 'op-lea' },
    request: waitingRequestOf(toolApproval({ command: 'deploy <prod>' }), 'payments'),
    console_url: 'https://ahp.example.com/approvals',
    tier: 1,
  };

  it('mints an approve and a reject link to /decide, the token in the fragment, bound to request, decision, operator and tier, expiring at the deadline at the latest', () => {
    const job = NotificationJobDataSchema.parse(base);
    const links = mintDecisionLinks({ secret, ttlMs: 3_600_000 }, job, new Date(NOW))!;
    expect(links.approve).toMatch(/^https:\/\/ahp\.example\.com\/decide#v1\./);
    // The request's deadline (15 min) comes before the link lifetime (1 h).
    expect(links.expires_at).toBe('2026-11-26T05:15:00.000Z');
    const approve = verifyDecisionLink(secret, links.approve.split('#')[1]!, Date.parse(NOW));
    const reject = verifyDecisionLink(secret, links.reject.split('#')[1]!, Date.parse(NOW));
    expect(approve).toMatchObject({ ok: true, claims: { request_id: 'req_1', decision: 'approve', channel: 'lead', tier: 1, operator: 'op-lea' } });
    expect(reject).toMatchObject({ ok: true, claims: { decision: 'reject' } });
    expect(approve.ok && reject.ok && approve.claims.jti !== reject.claims.jti).toBe(true);
    // A shorter lifetime than the deadline wins; an admins tier binds the role.
    const admins = NotificationJobDataSchema.parse({ ...base, target: { type: 'slack', url: 'https://hooks.slack.example/x' }, role: 'admin' });
    const short = mintDecisionLinks({ secret, ttlMs: 60_000 }, admins, new Date(NOW))!;
    expect(short.expires_at).toBe('2026-11-26T05:01:00.000Z');
    expect(verifyDecisionLink(secret, short.approve.split('#')[1]!, Date.parse(NOW))).toMatchObject({ ok: true, claims: { role: 'admin' } });
    expect(mintDecisionLinks({ secret, ttlMs: 60_000 }, NotificationJobDataSchema.parse({ ...base, console_url: undefined }), new Date(NOW))).toBeUndefined();
  });

  it('Slack gets Approve and Reject buttons; the webhook body the links and the tier; the email escaped text and both links', () => {
    const job = NotificationJobDataSchema.parse(base);
    const links = mintDecisionLinks({ secret, ttlMs: 3_600_000 }, job, new Date(NOW))!;
    const slack = slackMessage(job, links) as { text: string; blocks: { type: string; elements?: { action_id: string; url: string }[] }[] };
    expect(slack.text).toContain('Still waiting (escalation 1)');
    expect(slack.blocks[1]?.elements?.map((e) => [e.action_id, e.url])).toEqual([
      ['ahp-approve', links.approve],
      ['ahp-reject', links.reject],
      ['ahp-open-console', 'https://ahp.example.com/approvals'],
    ]);
    expect(NotificationBodySchema.parse(webhookBody(job, 1, new Date(NOW), links))).toMatchObject({ tier: 1, links });
    const email = emailMessage(job, links);
    expect(email.subject).toBe('[AHP] Still waiting (escalation 1) — A tool call waits for approval: builder (payments)');
    expect(email.text).toContain(`Approve: ${links.approve}`);
    expect(email.html).toContain('deploy &lt;prod&gt;');
    expect(email.html).not.toContain('<prod>');
  });
});

describe('escalation routing', () => {
  const config = NotificationsConfigSchema.parse({
    channels: { chat: { type: 'slack', url: 'https://h.example/1' }, lead: { type: 'slack', url: 'https://h.example/2' }, admins: { type: 'slack', url: 'https://h.example/3' } },
    routes: [
      { teams: ['payments'], channels: ['chat'], escalate: [{ after: '5m', channels: ['lead'] }, { after: '10m', channels: ['admins'], role: 'admin' }] },
      { types: ['tool_approval'], channels: ['chat'], escalate: [{ after: '2m', channels: ['lead', 'admins'] }] },
    ],
  });

  it('merges the tiers of matching routes by position, at the earliest delay, each channel once', () => {
    const tiers = routeEscalation(config, { type: 'tool_approval', team: 'payments' });
    expect(tiers.map((t) => [t.tier, t.afterMs, t.role, t.channels.map((c) => c.name)])).toEqual([
      [1, 120_000, undefined, ['lead', 'admins']],
      [2, 600_000, 'admin', ['admins']],
    ]);
    expect(routeEscalation(config, { type: 'plan_approval', team: 'web' })).toEqual([]);
  });

  it('refuses tiers that do not come later than the one before, and unknown channels', () => {
    const bad = NotificationsConfigSchema.safeParse({
      channels: { chat: { type: 'slack', url: 'https://h.example/1' } },
      routes: [{ channels: ['chat'], escalate: [{ after: '5m', channels: ['chat'] }, { after: '300s', channels: ['nobody'] }] }],
    });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => i.message)).toEqual(expect.arrayContaining(['each tier must come later than the one before it', expect.stringContaining('unknown channel "nobody"')]));
  });
});
