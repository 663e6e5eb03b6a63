// Starts: a private Redis, two gateway processes and one oracle-worker process. The lead agent
// talks to gateway A, its teammates to gateway B, all through the SDK: the shutdown (docs/spec/teams.md#shutdown) and
// plan-approval protocols and plain team messages cross gateways through Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, isAhpClientError, type AhpClient, type IncomingRequest, type RequestAnswer } from '@ahp/sdk';
import { eventually, startSystem, type System } from './harness.js';
import { deferred, samplePlan } from './team-support.js';

describe('team protocols across two gateways', () => {
  let system: System;
  let lead: AhpClient;
  const clients: AhpClient[] = [];

  beforeAll(async () => {
    system = await startSystem({
      name: 'team-protocols',
      gateways: 2,
      workers: 1,
      agents: [
        { id: 'lead', name: 'Lead', team: 'orders', role: 'lead' },
        { id: 'alice', name: 'Alice', team: 'orders', role: 'teammate' },
        { id: 'bob', name: 'Bob', team: 'orders', role: 'teammate' },
        { id: 'carol', name: 'Carol', team: 'orders', role: 'teammate' },
        { id: 'dave', name: 'Dave', team: 'orders', role: 'teammate' },
      ],
      gatewayEnv: { AHP_HOOK_DEADLINE_MS: '5000' },
    });
    lead = await agent('lead', 0);
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await system?.stop();
  });

  /** Connects `agentId` to gateway `index` (0: A, 1: B). */
  async function agent(agentId: string, index: 0 | 1): Promise<AhpClient> {
    const client = await connect({ url: system.stack.gatewayUrls()[index]!, token: system.token(agentId), reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
    clients.push(client);
    expect(client.session?.gatewayId).toBe(system.stack.gateways[index]!.ready['gateway_id']);
    return client;
  }

  it('shutdown: the lead asks, the teammate approves, its idle loop ends and it disconnects cleanly', async () => {
    const alice = await agent('alice', 1);
    const asked: string[] = [];
    alice.onRequest('shutdown', (request) => {
      asked.push(request.payload.reason ?? '');
      return { approve: true };
    });
    const idle = alice.idle();

    const decision = await lead.requestShutdown('alice', { reason: 'the report is done' });

    expect(decision).toMatchObject({ status: 'approved', approved: true, decidedBy: 'alice', request: { sender: 'lead', type: 'shutdown' } });
    expect(asked).toEqual(['the report is done']);
    await expect(idle).resolves.toMatchObject({ kind: 'shutdown', request: { request_id: decision.requestId } });
    await eventually(() => (alice.state === 'closed' ? true : undefined), 'alice to disconnect');
    const presence = await eventually(async () => {
      const entries = await system.stores.presence.list(Date.now());
      return entries.some((entry) => entry.agent.id === 'alice') ? undefined : entries;
    }, 'alice to leave presence');
    expect(presence.map((entry) => entry.agent.id)).toContain('lead');
  });

  it('shutdown: a teammate may refuse with a reason, and keeps working', async () => {
    const bob = await agent('bob', 1);
    bob.onRequest('shutdown', () => ({ approve: false, feedback: 'still migrating s1' }));

    const decision = await lead.requestShutdown('bob');

    expect(decision).toMatchObject({ status: 'rejected', approved: false, feedback: 'still migrating s1', decidedBy: 'bob' });
    expect(bob.state).toBe('open');
    await lead.send('bob', 'fine, finish s1 first');
    await expect(bob.idle({ timeoutMs: 10_000 })).resolves.toMatchObject({ kind: 'message', message: { from: 'lead', content: 'fine, finish s1 first' } });
  });

  it('plan approval: tool calls wait for the lead; approval and rejection with feedback reach the teammate', async () => {
    const carol = await agent('carol', 1);
    const reviewed: IncomingRequest<'plan_approval'>[] = [];
    const verdict = deferred<RequestAnswer>();
    lead.onRequest('plan_approval', async (request) => {
      reviewed.push(request);
      return verdict.promise;
    });

    const first = carol.submitPlan(samplePlan(), { target: 'lead' });
    await eventually(() => (reviewed.length === 1 ? true : undefined), 'the lead to receive the plan');
    expect(reviewed[0]).toMatchObject({ sender: 'carol', payload: { plan: samplePlan() }, status: 'pending' });

    const gated = await carol.hook('pre-tool-use', { tool: { name: 'db.migrate', input: {} } }).catch((error: unknown) => error);
    expect(isAhpClientError(gated) && gated.code).toBe('E_PLAN_PENDING');

    verdict.resolve({ approve: false, feedback: 'split s1 into smaller batches' });
    await expect(first).resolves.toMatchObject({ status: 'rejected', feedback: 'split s1 into smaller batches', decidedBy: 'lead' });

    // Rejected: the gate stays closed until a plan is approved (docs/spec/teams.md#plan-gate); the teammate revises and resubmits.
    const stillGated = await carol.hook('pre-tool-use', { tool: { name: 'db.migrate', input: {} } }).catch((error: unknown) => error);
    expect(isAhpClientError(stillGated) && stillGated.code).toBe('E_PLAN_REQUIRED');
    lead.onRequest('plan_approval', (request) => ({ approve: true, feedback: `LGTM: ${request.payload.plan.title}` }));
    const second = await carol.submitPlan(samplePlan('Speed up the orders report, in batches'), { target: 'lead' });
    expect(second).toMatchObject({ status: 'approved', approved: true, feedback: 'LGTM: Speed up the orders report, in batches' });
    const result = await carol.hook('pre-tool-use', { tool: { name: 'db.migrate', input: {} } });
    expect(result.decidedBy).toBe('oracles');

    await carol.report({ kind: 'plan_progress', request_id: second.requestId, step_id: 's1', plan: { ...samplePlan(), steps: samplePlan().steps.map((step) => (step.id === 's1' ? { ...step, status: 'done' } : step)) } });
  });

  it('cancel: the sender withdraws a pending plan; its gate lifts, nobody else may cancel it, and a re-sent cancel is acknowledged', async () => {
    const dave = await agent('dave', 1);
    const requestId = `req_cancel_${Date.now()}`;
    const pending = dave.submitPlan(samplePlan('A plan withdrawn'), { requestId, approver: 'operators' });
    await eventually(async () => ((await system.stores.requests.get(requestId))?.state.status === 'pending' ? true : undefined), 'the plan to be pending');
    const gated = await dave.hook('pre-tool-use', { tool: { name: 'db.migrate', input: {} } }).catch((error: unknown) => error);
    expect(isAhpClientError(gated) && gated.code).toBe('E_PLAN_PENDING');

    const byLead = await lead.cancelRequest(requestId).catch((error: unknown) => error);
    expect(isAhpClientError(byLead) && byLead.code).toBe('E_FORBIDDEN');

    await expect(dave.cancelRequest(requestId)).resolves.toMatchObject({ status: 'cancelled', decided_by: 'dave' });
    await expect(pending).resolves.toMatchObject({ status: 'cancelled', approved: false });
    await expect(dave.cancelRequest(requestId)).resolves.toMatchObject({ status: 'cancelled' });
    const missing = await dave.cancelRequest('req_never_opened').catch((error: unknown) => error);
    expect(isAhpClientError(missing) && missing.code).toBe('E_NOT_FOUND');

    // Withdrawn: nothing is pending any more, so tool calls are evaluated again.
    const result = await dave.hook('pre-tool-use', { tool: { name: 'db.migrate', input: {} } });
    expect(result.decidedBy).toBe('oracles');
    const history = (await system.stores.requests.get(requestId))?.history.map((entry) => entry.event);
    expect(history).toEqual(['created', 'cancelled']);
  });
});
