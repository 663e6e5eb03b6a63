import { createRequest, NotificationBodySchema, NotificationJobDataSchema, type JsonObject, type ProtocolState } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { deliveryIdOf } from './dispatcher.js';
import { slackMessage, waitingRequestOf, webhookBody } from './message.js';

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
