// Starts: a private Redis, two gateway processes (with operator tokens) and one oracle-worker
// process. Checks what the team protocols promise beyond the happy path: answers are idempotent
// and type-checked, two operators deciding at once produce one winner, deadlines expire requests,
// the plan gate holds for a raw client that skips the SDK, messages wait for offline agents, and
// a pending approval outlives the gateway it was opened on.
import { randomUUID } from 'node:crypto';
import type { ErrorFrame, InboxPushFrame, RequestUpdateFrame, ServerFrame } from '@ahp/protocol';
import { connect, isAhpClientError, type AhpClient } from '@ahp/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawAgent, eventually, startSystem, type System } from './harness.js';
import { operatorApi, operatorCall, samplePlan, writeOperatorTokens, type OperatorTokens } from './team-support.js';

describe('team guarantees', () => {
  let system: System;
  let operators: OperatorTokens;
  const clients: AhpClient[] = [];
  const raws: RawAgent[] = [];

  beforeAll(async () => {
    operators = await writeOperatorTokens([
      { id: 'op-maria', name: 'Maria', role: 'approver' },
      { id: 'op-omar', name: 'Omar', role: 'approver' },
    ]);
    system = await startSystem({
      name: 'team-guarantees',
      gateways: 2,
      workers: 1,
      agents: ['lead', 'alice', 'bob', 'dave', 'erin', 'frank'].map((id) => ({
        id,
        name: id,
        team: 'orders',
        role: id === 'lead' ? ('lead' as const) : ('teammate' as const),
      })),
      gatewayEnv: { AHP_OPERATOR_TOKENS_FILE: operators.file, AHP_REQUEST_SWEEP_MS: '200', AHP_HOOK_DEADLINE_MS: '5000' },
    });
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    for (const raw of raws) raw.close();
    await system?.stop();
    await operators?.remove();
  });

  async function sdk(agentId: string, urls: string[]): Promise<AhpClient> {
    const client = await connect({ url: urls, token: system.token(agentId), reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
    clients.push(client);
    return client;
  }

  async function raw(agentId: string, gateway: 0 | 1): Promise<RawAgent> {
    const agent = await RawAgent.connect(system.stack.gatewayUrls()[gateway]!, system.token(agentId));
    raws.push(agent);
    return agent;
  }

  /** Sends a frame and waits for its reply. */
  async function ask(agent: RawAgent, frame: { id: string } & Record<string, unknown>): Promise<ServerFrame> {
    agent.send(frame);
    return agent.next((reply) => 'id' in reply && reply.id === frame.id);
  }

  function errorOf(frame: ServerFrame): ErrorFrame['error'] {
    if (frame.type !== 'error') throw new Error(`expected an error, got ${JSON.stringify(frame)}`);
    return frame.error;
  }

  it('answers are type-checked and idempotent; an unknown request is not found', async () => {
    const lead = await raw('lead', 0);
    const alice = await raw('alice', 1);
    const id = `req_${randomUUID()}`;
    await ask(lead, { type: 'request', id: 'open', request: { request_id: id, type: 'shutdown', target: { kind: 'agent', agent: 'alice' }, payload: {} } });
    await alice.next((frame) => frame.type === 'inbox' && frame.message.metadata.request_id === id);

    const answer = (frameId: string, type: string, approve: boolean) => ({ type: 'response', id: frameId, response: { request_id: id, type, approve } });
    expect(errorOf(await ask(alice, answer('wrong-type', 'plan_approval_response', true))).code).toBe('E_TYPE_MISMATCH');
    expect(await ask(alice, answer('yes', 'shutdown_response', true))).toMatchObject({ type: 'ack', result: { request: { status: 'approved' } } });
    expect(await ask(alice, answer('yes-again', 'shutdown_response', true))).toMatchObject({ type: 'ack', result: { request: { status: 'approved', decided_by: 'alice' } } });
    expect(errorOf(await ask(alice, answer('no', 'shutdown_response', false)))).toMatchObject({ code: 'E_CONFLICT', details: { decided_by: 'alice', status: 'approved' } });
    expect(errorOf(await ask(alice, { type: 'response', id: 'unknown', response: { request_id: `req_${randomUUID()}`, type: 'shutdown_response', approve: true } })).code).toBe('E_NOT_FOUND');

    await lead.next((frame) => frame.type === 'inbox' && frame.message.metadata.request_id === id);
    const responses = lead.frames.filter((frame): frame is InboxPushFrame => frame.type === 'inbox' && frame.message.metadata.request_id === id);
    expect(responses.map((frame) => frame.message.metadata.approve)).toEqual([true]);
  });

  it('of two operators deciding at once, exactly one wins, and the teammate gets that decision', async () => {
    const alice = await sdk('alice', [system.stack.gatewayUrls()[1]!]);
    const requestId = `req_${randomUUID()}`;
    const decision = alice.submitPlan(samplePlan(), { requestId, approver: 'operators' });
    await eventually(async () => ((await system.stores.requests.get(requestId)) === null ? undefined : true), 'the request to exist');

    const [maria, omar] = await Promise.all([
      operatorCall(operatorApi(system.stack.gateways[0]!), operators.token('op-maria'), 'POST', `/requests/${requestId}/decision`, { approve: true }),
      operatorCall(operatorApi(system.stack.gateways[1]!), operators.token('op-omar'), 'POST', `/requests/${requestId}/decision`, { approve: false, feedback: 'not now' }),
    ]);
    expect([maria.status, omar.status].sort()).toEqual([200, 409]);
    const winner = maria.status === 200 ? 'op-maria' : 'op-omar';
    const loser = maria.status === 200 ? omar : maria;
    expect(loser.json).toMatchObject({ error: { code: 'E_CONFLICT', details: { decided_by: winner } } });
    await expect(decision).resolves.toMatchObject({ decidedBy: winner, approved: winner === 'op-maria' });
  });

  it('expires a request nobody decides before its deadline', async () => {
    const bob = await sdk('bob', system.stack.gatewayUrls());
    const expired = await bob.submitPlan(samplePlan(), { deadlineMs: 500 });
    expect(expired).toMatchObject({ status: 'expired', approved: false });
    // An expired plan is no approved plan: tool calls stay gated (docs/spec/teams.md#plan-gate).
    const gated = await bob.hook('pre-tool-use', { tool: { name: 'edit', input: {} } }).catch((error: unknown) => error);
    expect(isAhpClientError(gated) && gated.code).toBe('E_PLAN_REQUIRED');
    expect(isAhpClientError(gated) && gated.details).toMatchObject({ status: 'expired', request_id: expired.requestId });
  });

  it('gates tool calls on the gateway for a raw client that skips the SDK check', async () => {
    const frank = await raw('frank', 0);
    const requestId = `req_${randomUUID()}`;
    await ask(frank, { type: 'request', id: 'plan', request: { request_id: requestId, type: 'plan_approval', target: { kind: 'operators' }, payload: { plan: samplePlan() } } });
    const hookId = randomUUID();
    const gated = await ask(frank, { type: 'hook', id: hookId, trigger: 'pre-tool-use', context: { tool: { name: 'db.migrate', input: {} } } });
    expect(errorOf(gated)).toMatchObject({ code: 'E_PLAN_PENDING', retryable: true, details: { request_id: requestId } });

    const approved = await operatorCall(operatorApi(system.stack.gateways[1]!), operators.token('op-maria'), 'POST', `/requests/${requestId}/decision`, { approve: true });
    expect(approved.status).toBe(200);
    await frank.next((frame): frame is RequestUpdateFrame => frame.type === 'request_update' && frame.request.request_id === requestId && frame.request.status === 'approved');
    frank.send({ type: 'hook', id: hookId, trigger: 'pre-tool-use', context: { tool: { name: 'db.migrate', input: {} } } });
    expect(await frank.next((frame) => frame.type === 'decision' && frame.id === hookId)).toMatchObject({ decision: { decided_by: 'oracles' } });
  });

  it('keeps a message for an agent that was never connected and delivers it when it connects', async () => {
    const lead = await sdk('lead', [system.stack.gatewayUrls()[0]!]);
    const sent = await lead.send('dave', 'start with the invoices export');
    const dave = await sdk('dave', [system.stack.gatewayUrls()[1]!]);
    await expect(dave.idle({ timeoutMs: 10_000 })).resolves.toEqual({ kind: 'message', message: sent });
  });

  it('keeps a pending approval across a gateway restart; it is decided afterwards and reaches the agent', async () => {
    const [urlA, urlB] = system.stack.gatewayUrls();
    const erin = await sdk('erin', [urlB!, urlA!]);
    const requestId = `req_${randomUUID()}`;
    const decision = erin.submitPlan(samplePlan(), { requestId, approver: 'operators' });
    await eventually(async () => ((await system.stores.requests.get(requestId)) === null ? undefined : true), 'the request to exist');

    await system.stack.gateways[1]!.stop();
    const restarted = await system.stack.addGateway();
    const pending = await operatorCall(operatorApi(restarted), operators.token('op-omar'), 'GET', `/requests/${requestId}`);
    expect(pending).toMatchObject({ status: 200, json: { request: { status: 'pending', sender: 'erin' } } });

    const decided = await operatorCall(operatorApi(restarted), operators.token('op-omar'), 'POST', `/requests/${requestId}/decision`, { approve: true, feedback: 'go ahead' });
    expect(decided.status).toBe(200);
    await expect(decision).resolves.toMatchObject({ status: 'approved', feedback: 'go ahead', decidedBy: 'op-omar' });
  });
});
