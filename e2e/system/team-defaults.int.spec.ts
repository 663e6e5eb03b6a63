// Starts: a private Redis, one gateway process and one oracle-worker process. The team defaults
// (docs/spec/teams.md) of the SDK against the real gateway: a teammate without a shutdown handler answers by itself (approve
// when idle, refuse while a tool call runs), and submitPlan() goes to the lead named in the client's
// options, or to lead and operators together (both must approve).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDLE_SHUTDOWN_FEEDBACK, connect, isAhpClientError, type AhpClient, type IncomingRequest } from '@ahp/sdk';
import { runAgentLoop, type AgentModel, type ModelAction } from '@ahp/sdk/agent-loop';
import { eventually, startSystem, type System } from './harness.js';
import { deferred, operatorApi, operatorCall, samplePlan, writeOperatorTokens, type OperatorTokens } from './team-support.js';

describe('team defaults of the SDK (docs/spec/teams.md#shutdown, docs/spec/teams.md#plan-approval) against a real gateway', () => {
  let system: System;
  let operators: OperatorTokens;
  let lead: AhpClient;
  const clients: AhpClient[] = [];
  const reviewed: IncomingRequest<'plan_approval'>[] = [];
  let leadVerdict = deferred<{ approve: boolean; feedback: string }>();

  beforeAll(async () => {
    operators = await writeOperatorTokens([{ id: 'op-maria', name: 'Maria', role: 'approver' }]);
    system = await startSystem({
      name: 'team-defaults',
      gateways: 1,
      workers: 1,
      agents: ['lead', 'alice', 'bob', 'carol', 'dave', 'erin'].map((id) => ({ id, name: id, team: 'orders', role: id === 'lead' ? ('lead' as const) : ('teammate' as const) })),
      gatewayEnv: { AHP_OPERATOR_TOKENS_FILE: operators.file, AHP_HOOK_DEADLINE_MS: '5000' },
    });
    lead = await agent('lead');
    lead.onRequest('plan_approval', async (request) => {
      reviewed.push(request);
      return leadVerdict.promise;
    });
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await system?.stop();
    await operators?.remove();
  });

  async function agent(agentId: string, lead?: string): Promise<AhpClient> {
    const client = await connect({ url: system.stack.gatewayUrls()[0]!, token: system.token(agentId), reconnect: { initialDelayMs: 20, maxDelayMs: 200 }, ...(lead === undefined ? {} : { lead }) });
    clients.push(client);
    return client;
  }

  it('shutdown without a handler: refused with the reason while a tool call runs, approved once idle; the teammate disconnects', async () => {
    const alice = await agent('alice');
    const tool = deferred<string>();
    const running = alice.trackToolCall('db.migrate', () => tool.promise);

    const busy = await lead.requestShutdown('alice', { reason: 'the report is done' });
    expect(busy).toMatchObject({ status: 'rejected', approved: false, decidedBy: 'alice', feedback: 'busy: 1 tool call running (db.migrate); ask again once it has finished' });
    expect(alice.state).toBe('open');

    tool.resolve('migrated');
    await expect(running).resolves.toBe('migrated');
    const idle = alice.idle();
    const approved = await lead.requestShutdown('alice', { reason: 'the report is done' });
    expect(approved).toMatchObject({ status: 'approved', approved: true, decidedBy: 'alice', feedback: IDLE_SHUTDOWN_FEEDBACK });
    await expect(idle).resolves.toMatchObject({ kind: 'shutdown', request: { request_id: approved.requestId } });
    await eventually(() => (alice.state === 'closed' ? true : undefined), 'alice to disconnect');
  });

  it('runAgentLoop: a shutdown is refused during a tool call and approved between turns; the loop then stops with stopReason shutdown', async () => {
    const erin = await agent('erin');
    const toolGate = deferred<undefined>();
    const turns: ReturnType<typeof deferred<ModelAction>>[] = [deferred(), deferred()];
    let asked = 0;
    const model: AgentModel = {
      plan: async () => ({ title: 'migrate', steps: [{ id: 'a', description: 'migrate', dependencies: [], status: 'pending', tools_expected: ['db.migrate'] }] }),
      replan: async (plan) => plan,
      next: () => turns[asked++]!.promise,
    };
    const ran: string[] = [];
    const loop = runAgentLoop({
      model,
      client: erin,
      goal: 'migrate the orders table',
      tools: {
        'db.migrate': async (input) => {
          ran.push(String(input['step']));
          await toolGate.promise;
          return { ok: true, output: 'migrated' };
        },
      },
    });

    turns[0]!.resolve({ type: 'tool_call', tool: 'db.migrate', input: { step: 'first' } });
    await eventually(() => (erin.runningToolCalls.length === 1 && ran.length === 1 ? true : undefined), 'the tool call to run');
    await expect(lead.requestShutdown('erin')).resolves.toMatchObject({ status: 'rejected', feedback: expect.stringMatching(/^busy: 1 tool call running \(db\.migrate\)/) });

    toolGate.resolve(undefined);
    await eventually(() => (asked === 2 ? true : undefined), 'the model to think about its next turn');
    await expect(lead.requestShutdown('erin')).resolves.toMatchObject({ status: 'approved', feedback: IDLE_SHUTDOWN_FEEDBACK });
    // The lead may learn of the approval before erin's SDK has its acknowledgement: the second call
    // then starts and its pre-tool-use hook fails as the client closes. Either way the tool never runs.
    turns[1]!.resolve({ type: 'tool_call', tool: 'db.migrate', input: { step: 'second' } });

    await expect(loop).resolves.toMatchObject({ stopReason: 'shutdown' });
    expect(ran).toEqual(['first']);
    await eventually(() => (erin.state === 'closed' ? true : undefined), 'erin to disconnect');
  });

  it('plan approval goes to the lead named in the options; tool calls wait for it', async () => {
    const bob = await agent('bob', 'lead');
    leadVerdict = deferred();
    const decision = bob.submitPlan(samplePlan('Bob: index first'));
    await eventually(() => reviewed.find((request) => request.sender === 'bob'), 'the lead to receive the plan');
    const stored = await system.stores.requests.get(reviewed.at(-1)!.request_id);
    expect(stored?.state.target).toEqual({ kind: 'agent', agent: 'lead' });
    const gated = await bob.hook('pre-tool-use', { tool: { name: 'db.migrate', input: {} } }).catch((error: unknown) => error);
    expect(isAhpClientError(gated) && gated.code).toBe('E_PLAN_PENDING');

    leadVerdict.resolve({ approve: true, feedback: 'LGTM' });
    await expect(decision).resolves.toMatchObject({ status: 'approved', decidedBy: 'lead', feedback: 'LGTM' });
  });

  it('"both": approved only after the lead and an operator approve', async () => {
    const carol = await agent('carol', 'lead');
    leadVerdict = deferred();
    const requestId = `req_${randomUUID()}`;
    const decision = carol.submitPlan(samplePlan('Carol: both'), { approver: 'both', requestId });
    await eventually(async () => ((await system.stores.requests.get(`${requestId}.operators`)) === null ? undefined : true), 'the operators request');
    expect((await system.stores.requests.get(requestId))?.state.target).toEqual({ kind: 'agent', agent: 'lead' });
    expect((await system.stores.requests.get(`${requestId}.operators`))?.state.target).toEqual({ kind: 'operators' });

    leadVerdict.resolve({ approve: true, feedback: 'LGTM' });
    await eventually(async () => ((await system.stores.requests.get(requestId))?.state.status === 'approved' ? true : undefined), 'the lead approval');
    const gated = await carol.hook('pre-tool-use', { tool: { name: 'db.migrate', input: {} } }).catch((error: unknown) => error);
    expect(isAhpClientError(gated) && gated.code).toBe('E_PLAN_PENDING');

    const op = await operatorCall(operatorApi(system.stack.gateways[0]!), operators.token('op-maria'), 'POST', `/requests/${requestId}.operators/decision`, { approve: true, feedback: 'ok' });
    expect(op.status).toBe(200);
    const both = await decision;
    expect(both).toMatchObject({ status: 'approved', approved: true });
    expect(both.parts?.map((part) => [part.requestId, part.decidedBy])).toEqual([
      [requestId, 'lead'],
      [`${requestId}.operators`, 'op-maria'],
    ]);
    expect(await carol.hook('pre-tool-use', { tool: { name: 'db.migrate', input: {} } })).toMatchObject({ decidedBy: 'oracles' });
  });

  it('"both": an operator refusal decides, and the lead request is withdrawn', async () => {
    const dave = await agent('dave', 'lead');
    leadVerdict = deferred();
    const requestId = `req_${randomUUID()}`;
    const decision = dave.submitPlan(samplePlan('Dave: refused'), { approver: 'both', requestId });
    await eventually(async () => ((await system.stores.requests.get(`${requestId}.operators`)) === null ? undefined : true), 'the operators request');
    const op = await operatorCall(operatorApi(system.stack.gateways[0]!), operators.token('op-maria'), 'POST', `/requests/${requestId}.operators/decision`, { approve: false, feedback: 'not in prod hours' });
    expect(op.status).toBe(200);
    await expect(decision).resolves.toMatchObject({ requestId: `${requestId}.operators`, status: 'rejected', feedback: 'not in prod hours' });
    await eventually(async () => ((await system.stores.requests.get(requestId))?.state.status === 'cancelled' ? true : undefined), 'the lead request withdrawn');
    // Rejected by one of the two: the teammate has no approved plan, so its tool calls stay gated.
    const gated = await dave.hook('pre-tool-use', { tool: { name: 'db.migrate', input: {} } }).catch((error: unknown) => error);
    expect(isAhpClientError(gated) && gated.code).toBe('E_PLAN_REQUIRED');
    leadVerdict.resolve({ approve: true, feedback: 'too late' });
  });
});
