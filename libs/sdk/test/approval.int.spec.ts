/**
 * `hook()` of a tool call that waits for a person's approval, against a scripted gateway over real
 * sockets: it waits for the request to settle (by push, by inbox message, or after a reconnect),
 * re-sends the call presenting the request, and resolves with that second decision.
 */
import { aggregateSignals, toolApprovalRequestId } from '@ahp/protocol/wire';
import type { HookDecision, HookFrame, InboxMessage, ProtocolState, Signal } from '@ahp/protocol/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../src/index.js';
import type { AhpClient, AwaitingApprovalInfo, ClientOptions } from '../src/index.js';
import { decisionFor, signalOf } from './support/fixtures.js';
import { ScriptedGateway, TEST_AGENT, TEST_TOKEN, eventually } from './support/scripted-gateway.js';
import type { GatewayPeer } from './support/scripted-gateway.js';

const NOW = '2025-01-02T03:04:05.000Z';
const gateways: ScriptedGateway[] = [];
const clients: AhpClient[] = [];

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  await Promise.allSettled(gateways.splice(0).map((gateway) => gateway.stop()));
});

async function setup(extra: Partial<ClientOptions> = {}) {
  const gateway = await ScriptedGateway.start();
  gateways.push(gateway);
  const client = await connect({ url: gateway.url, token: TEST_TOKEN, reconnect: { initialDelayMs: 5, maxDelayMs: 20 }, connectTimeoutMs: 4_000, ...extra });
  clients.push(client);
  return { gateway, client };
}

function awaitDecision(hookId: string, requestId: string, deadline: string): HookDecision {
  const signal: Signal = {
    header: { id: globalThis.crypto.randomUUID(), type: 'approval-required', timestamp: NOW, source: 'risky-commands', intensity: 'block' },
    context: { approval: { request_id: requestId, status: 'pending' } },
    payload: {
      level: 'blocking',
      decision: 'deny',
      reason: 'rm -rf needs an approval',
      resolvable: true,
      resolution_path: ['wait'],
      resolution: { kind: 'await_approval', request_id: requestId, deadline },
    },
  };
  return aggregateSignals({ hookId, trigger: 'pre-tool-use', signals: [signal], now: NOW });
}

function requestState(requestId: string, status: 'pending' | 'approved' | 'rejected'): ProtocolState {
  return {
    request_id: requestId,
    type: 'tool_approval',
    sender: TEST_AGENT.id,
    target: { kind: 'operators' },
    status,
    created_at: NOW,
    updated_at: NOW,
    ...(status === 'pending' ? {} : { decided_by: 'op-1', decided_at: NOW }),
    payload: { tool: 'bash', input: { command: 'rm -rf build' }, input_digest: 'a'.repeat(64) },
  };
}

function responseMessage(requestId: string, status: 'approved' | 'rejected'): InboxMessage {
  return {
    id: globalThis.crypto.randomUUID(),
    from: 'op-1',
    to: TEST_AGENT.id,
    type: 'tool_approval_response',
    content: '',
    sent_at: NOW,
    metadata: { request_id: requestId, approve: status === 'approved', status },
  };
}

/**
 * The gateway's side: the first hook waits on a request; a hook presenting it gets `second` once
 * `settled()` says so, else the same wait again. Returns the hooks received.
 */
function script(gateway: ScriptedGateway, options: { deadline?: string; second: (frame: HookFrame) => HookDecision; settled: () => boolean }): HookFrame[] {
  const hooks: HookFrame[] = [];
  let requestId: string | undefined;
  gateway.script = (frame, peer) => {
    if (frame.type === 'inbox_ack') peer.send({ type: 'ack', id: frame.id });
    if (frame.type !== 'hook') return;
    hooks.push(frame);
    const presented = (frame.context['approval'] as { request_id?: string } | undefined)?.request_id;
    requestId ??= toolApprovalRequestId(frame.id);
    const deadline = options.deadline ?? new Date(Date.now() + 60_000).toISOString();
    const decision = presented !== undefined && options.settled() ? options.second(frame) : awaitDecision(frame.id, requestId, deadline);
    peer.send({ type: 'decision', id: frame.id, decision });
  };
  return hooks;
}

let seq = 0;
function push(peer: GatewayPeer, frame: { type: 'request_update'; request: ProtocolState } | { type: 'inbox'; message: InboxMessage }): void {
  seq += 1;
  peer.send({ ...frame, seq } as Parameters<GatewayPeer['send']>[0]);
}

const CONTEXT = { tool: { name: 'bash', input: { command: 'rm -rf build' } } };

describe('hook() waiting for an approval', () => {
  it('waits for the request, re-sends the call presenting it, and resolves with the second decision', async () => {
    const { gateway, client } = await setup();
    let settled = false;
    const hooks = script(gateway, { settled: () => settled, second: (frame) => decisionFor(frame.id, 'pre-tool-use', [signalOf('control')]) });
    const callbacks: AwaitingApprovalInfo[] = [];
    const events: AwaitingApprovalInfo[] = [];
    client.on('awaiting_approval', (info) => {
      events.push(info);
    });
    const result = client.hook('pre-tool-use', CONTEXT, { onAwaitingApproval: (info) => callbacks.push(info) });
    await eventually(() => callbacks.length === 1, 'the callback');
    const requestId = toolApprovalRequestId(hooks[0]!.id);
    expect(callbacks[0]).toMatchObject({ hookId: hooks[0]!.id, requestId, reason: 'rm -rf needs an approval' });
    expect(events).toEqual(callbacks);
    expect(hooks).toHaveLength(1);

    settled = true;
    const peer = gateway.peers[0]!;
    push(peer, { type: 'request_update', request: requestState(requestId, 'approved') });
    push(peer, { type: 'inbox', message: responseMessage(requestId, 'approved') });
    const decided = await result;
    expect(decided.allowed).toBe(true);
    expect(decided.intensity).toBe('control');
    expect(hooks).toHaveLength(2);
    expect(hooks[1]!.id).not.toBe(hooks[0]!.id);
    expect(hooks[1]!.context).toEqual({ ...CONTEXT, approval: { request_id: requestId } });
    // The response message was used, so it is acknowledged.
    await eventually(() => gateway.frames.some((f) => f.type === 'inbox_ack'), 'the inbox ack');
  });

  it('settles on the inbox response alone, when no state push came', async () => {
    const { gateway, client } = await setup();
    let settled = false;
    const hooks = script(gateway, { settled: () => settled, second: (frame) => decisionFor(frame.id, 'pre-tool-use', [signalOf('block')]) });
    const result = client.hook('pre-tool-use', CONTEXT);
    await eventually(() => hooks.length === 1, 'the first hook');
    settled = true;
    push(gateway.peers[0]!, { type: 'inbox', message: responseMessage(toolApprovalRequestId(hooks[0]!.id), 'rejected') });
    const decided = await result;
    expect(decided.allowed).toBe(false);
    expect(hooks).toHaveLength(2);
  });

  it('asks the server again after a reconnect, so a response missed meanwhile is not waited for forever', async () => {
    const { gateway, client } = await setup();
    let settled = false;
    const hooks = script(gateway, { settled: () => settled, second: (frame) => decisionFor(frame.id, 'pre-tool-use', []) });
    const result = client.hook('pre-tool-use', CONTEXT);
    await eventually(() => hooks.length === 1, 'the first hook');
    settled = true;
    gateway.peers[0]!.terminate();
    const decided = await result;
    expect(decided.allowed).toBe(true);
    expect(hooks.at(-1)!.context['approval']).toEqual({ request_id: toolApprovalRequestId(hooks[0]!.id) });
  });

  it('re-sends at the deadline when nothing arrives, and keeps waiting while the server says pending', async () => {
    const { gateway, client } = await setup();
    let presented = 0;
    const hooks = script(gateway, {
      deadline: new Date(Date.now() - 60_000).toISOString(),
      settled: () => ++presented >= 2,
      second: (frame) => decisionFor(frame.id, 'pre-tool-use', [signalOf('block')]),
    });
    const decided = await client.hook('pre-tool-use', CONTEXT);
    expect(decided.allowed).toBe(false);
    expect(hooks).toHaveLength(3);
  });

  it('with waitForApproval: false, resolves with the waiting block and names the request', async () => {
    const { gateway, client } = await setup();
    const hooks = script(gateway, { settled: () => false, second: (frame) => decisionFor(frame.id, 'pre-tool-use', []) });
    const result = await client.hook('pre-tool-use', CONTEXT, { waitForApproval: false });
    expect(result.allowed).toBe(false);
    expect(result.block?.awaitingApproval).toEqual({ requestId: toolApprovalRequestId(hooks[0]!.id), deadline: expect.any(String) });
    expect(hooks).toHaveLength(1);
  });

  it('rejects the waiting hook when the client closes', async () => {
    const { gateway, client } = await setup();
    const hooks = script(gateway, { settled: () => false, second: (frame) => decisionFor(frame.id, 'pre-tool-use', []) });
    const result = client.hook('pre-tool-use', CONTEXT);
    const outcome = expect(result).rejects.toMatchObject({ code: 'E_CLOSED' });
    await eventually(() => hooks.length === 1, 'the first hook');
    await client.close();
    await outcome;
  });
});
