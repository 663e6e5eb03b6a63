/**
 * The team side of the client against a scripted gateway: plans and their gate, the one inbox
 * consumer (routing, deduplication across reconnects, acknowledgements), answering requests and
 * the shutdown that ends the idle loop. The scripted peer plays the gateway's part of each flow.
 */
import type { InboxMessage, Plan, ProtocolState } from '@ahp/protocol/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { AhpClientError, connect } from '../src/index.js';
import type { AhpClient, ClientOptions } from '../src/index.js';
import { decisionFor } from './support/fixtures.js';
import { ScriptedGateway, TEST_AGENT, TEST_TOKEN, eventually } from './support/scripted-gateway.js';
import type { GatewayPeer } from './support/scripted-gateway.js';

const NOW = '2026-02-09T10:00:00Z';
const LATER = '2026-02-09T10:02:00Z';
const PLAN: Plan = {
  title: 'Speed up the orders report',
  steps: [{ id: 's1', description: 'Add an index on orders.created_at', dependencies: [], status: 'pending', tools_expected: ['db.migrate'] }],
};

const gateways: ScriptedGateway[] = [];
const clients: AhpClient[] = [];

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  await Promise.allSettled(gateways.splice(0).map((gateway) => gateway.stop()));
});

async function setup(extra: Partial<ClientOptions> = {}): Promise<{ gw: ScriptedGateway; client: AhpClient; push: (peer: GatewayPeer, frame: PushBody) => void }> {
  const gw = await ScriptedGateway.start();
  gateways.push(gw);
  const client = await connect({ url: gw.url, token: TEST_TOKEN, reconnect: { initialDelayMs: 5, maxDelayMs: 20 }, connectTimeoutMs: 4_000, ...extra });
  clients.push(client);
  // One seq counter across peers: a resumed session never numbers below what the client saw.
  let seq = 0;
  const push = (peer: GatewayPeer, frame: PushBody): void => peer.send({ ...frame, seq: ++seq });
  return { gw, client, push };
}

type PushBody = { type: 'request_update'; request: ProtocolState } | { type: 'inbox'; message: InboxMessage };

function message(id: string, extra: Partial<InboxMessage> = {}): InboxMessage {
  return { id, from: 'lead', to: TEST_AGENT.id, content: `content of ${id}`, type: 'message', metadata: {}, sent_at: NOW, ...extra };
}

/** Acknowledges every frame that expects an `ack` without a result. */
function ackInboxAcks(frame: { type: string; id: string }, peer: GatewayPeer): boolean {
  if (frame.type !== 'inbox_ack') return false;
  peer.send({ type: 'ack', id: frame.id });
  return true;
}

describe('submitPlan', () => {
  it('gates pre-tool-use hooks until the plan is decided, then resolves with the decision', async () => {
    const { gw, client, push } = await setup();
    let pending: ProtocolState | undefined;
    gw.script = (frame, peer) => {
      if (ackInboxAcks(frame, peer)) return;
      if (frame.type === 'hook') peer.send({ type: 'decision', id: frame.id, decision: decisionFor(frame.id, frame.trigger, []) });
      if (frame.type === 'request' && frame.request.type === 'plan_approval') {
        pending = {
          request_id: frame.request.request_id,
          type: 'plan_approval',
          sender: TEST_AGENT.id,
          target: frame.request.target,
          status: 'pending',
          payload: frame.request.payload,
          created_at: NOW,
          updated_at: NOW,
        };
        peer.send({ type: 'ack', id: frame.id, result: { kind: 'request', request: pending } });
      }
    };

    const decision = client.submitPlan(PLAN, { target: 'lead' });
    await eventually(() => pending, 'the request frame');
    expect(gw.framesOf('request')[0]!.request).toMatchObject({ type: 'plan_approval', target: { kind: 'agent', agent: 'lead' }, payload: { plan: PLAN } });

    const gated = await client.hook('pre-tool-use', { tool: { name: 'db.migrate', input: {} } }).catch((error: unknown) => error);
    expect(gated).toBeInstanceOf(AhpClientError);
    expect(gated).toMatchObject({ code: 'E_PLAN_PENDING', retryable: true, details: { request_id: pending!.request_id } });
    expect(gw.framesOf('hook')).toEqual([]);

    const approved: ProtocolState = { ...pending!, status: 'approved', updated_at: LATER, decided_by: 'lead', decided_at: LATER, feedback: 'LGTM' };
    const response = message('msg-r1', { type: 'plan_approval_response', content: 'LGTM', metadata: { request_id: pending!.request_id, approve: true } });
    push(gw.current!, { type: 'request_update', request: approved });
    push(gw.current!, { type: 'inbox', message: response });

    await expect(decision).resolves.toMatchObject({ requestId: pending!.request_id, status: 'approved', approved: true, feedback: 'LGTM', decidedBy: 'lead' });
    await eventually(() => gw.framesOf('inbox_ack').some((frame) => frame.message_ids.includes('msg-r1')), 'the response acknowledged');
    await expect(client.hook('pre-tool-use', { tool: { name: 'db.migrate', input: {} } })).resolves.toMatchObject({ allowed: true });
    expect(gw.invalid).toEqual([]);
  });

  it('asks again for the state when a decision arrives without it', async () => {
    const { gw, client, push } = await setup();
    let opens = 0;
    let open: ProtocolState | undefined;
    gw.script = (frame, peer) => {
      if (ackInboxAcks(frame, peer)) return;
      if (frame.type !== 'request' || frame.request.type !== 'plan_approval') return;
      opens += 1;
      open ??= {
        request_id: frame.request.request_id,
        type: 'plan_approval',
        sender: TEST_AGENT.id,
        target: frame.request.target,
        status: 'pending',
        payload: frame.request.payload,
        created_at: NOW,
        updated_at: NOW,
      };
      const state: ProtocolState = opens === 1 ? open : { ...open, status: 'rejected', updated_at: LATER, decided_by: 'op-maria', decided_at: LATER, feedback: 'split s1' };
      peer.send({ type: 'ack', id: frame.id, result: { kind: 'request', request: state } });
    };
    const decision = client.submitPlan(PLAN);
    await eventually(() => open, 'the request');
    push(gw.current!, { type: 'inbox', message: message('msg-r2', { type: 'plan_approval_response', metadata: { request_id: open!.request_id, approve: false } }) });

    await expect(decision).resolves.toMatchObject({ status: 'rejected', approved: false, feedback: 'split s1', decidedBy: 'op-maria' });
    expect(gw.framesOf('request').map((frame) => frame.request.request_id)).toEqual([open!.request_id, open!.request_id]);
    expect(gw.framesOf('request')[0]!.request.target).toEqual({ kind: 'operators' });
  });
});

describe('submitPlan routing (docs/spec/teams.md#plan-approval: plans go to the lead)', () => {
  /** A gateway that keeps plan requests pending and answers cancels; `decide` settles one and pushes the state. */
  function planGateway(gw: ScriptedGateway) {
    const states = new Map<string, ProtocolState>();
    gw.script = (frame, peer) => {
      if (ackInboxAcks(frame, peer)) return;
      if (frame.type === 'request') {
        const state: ProtocolState = states.get(frame.request.request_id) ?? {
          request_id: frame.request.request_id,
          type: 'plan_approval',
          sender: TEST_AGENT.id,
          target: frame.request.target,
          status: 'pending',
          payload: frame.request.payload,
          created_at: NOW,
          updated_at: NOW,
        } as ProtocolState;
        states.set(state.request_id, state);
        peer.send({ type: 'ack', id: frame.id, result: { kind: 'request', request: state } });
      }
      if (frame.type === 'cancel') {
        const cancelled = { ...states.get(frame.request_id)!, status: 'cancelled', updated_at: LATER, decided_by: TEST_AGENT.id, decided_at: LATER } as ProtocolState;
        states.set(frame.request_id, cancelled);
        peer.send({ type: 'ack', id: frame.id, result: { kind: 'request', request: cancelled } });
      }
    };
    let seq = 1_000;
    const decide = (requestId: string, status: 'approved' | 'rejected', by: string, feedback: string) => {
      const decided = { ...states.get(requestId)!, status, updated_at: LATER, decided_by: by, decided_at: LATER, feedback } as ProtocolState;
      states.set(requestId, decided);
      gw.current!.send({ type: 'request_update', request: decided, seq: ++seq });
    };
    return { states, decide };
  }

  it('goes to the lead named in the options by default, and to the operators without one', async () => {
    const { gw, client } = await setup({ lead: 'lead-7' });
    const { states, decide } = planGateway(gw);
    expect(client.lead).toBe('lead-7');
    const decision = client.submitPlan(PLAN, { requestId: 'req_plan_lead' });
    await eventually(() => states.get('req_plan_lead'), 'the request');
    expect(gw.framesOf('request')[0]!.request.target).toEqual({ kind: 'agent', agent: 'lead-7' });
    decide('req_plan_lead', 'approved', 'lead-7', 'LGTM');
    await expect(decision).resolves.toMatchObject({ status: 'approved', decidedBy: 'lead-7' });

    const other = await setup();
    const plain = planGateway(other.gw);
    other.client.submitPlan(PLAN, { requestId: 'req_plan_ops' }).catch(() => undefined);
    await eventually(() => plain.states.get('req_plan_ops'), 'the request');
    expect(other.gw.framesOf('request')[0]!.request.target).toEqual({ kind: 'operators' });
    await expect(other.client.submitPlan(PLAN, { approver: 'lead' })).rejects.toMatchObject({ code: 'E_INVALID_FRAME', message: /ClientOptions\.lead/ });
    expect(other.gw.framesOf('request')).toHaveLength(1);
  });

  it("defaults to the lead the gateway's welcome names (not itself); ClientOptions.lead still wins", async () => {
    const gw = await ScriptedGateway.start({ agent: { ...TEST_AGENT, team: 'red', role: 'teammate', lead: 'lead-9' } });
    gateways.push(gw);
    const { states } = planGateway(gw);
    const client = await connect({ url: gw.url, token: TEST_TOKEN, connectTimeoutMs: 4_000 });
    clients.push(client);
    expect(client.lead).toBe('lead-9');
    client.submitPlan(PLAN, { requestId: 'req_plan_welcome' }).catch(() => undefined);
    await eventually(() => states.get('req_plan_welcome'), 'the request');
    expect(gw.framesOf('request')[0]!.request.target).toEqual({ kind: 'agent', agent: 'lead-9' });

    const configured = await connect({ url: gw.url, token: TEST_TOKEN, connectTimeoutMs: 4_000, lead: 'lead-7' });
    clients.push(configured);
    expect(configured.lead).toBe('lead-7');

    const own = await ScriptedGateway.start({ agent: { ...TEST_AGENT, team: 'red', role: 'lead', lead: TEST_AGENT.id } });
    gateways.push(own);
    const lead = await connect({ url: own.url, token: TEST_TOKEN, connectTimeoutMs: 4_000 });
    clients.push(lead);
    expect(lead.lead).toBeUndefined();
  });

  it('"both": two requests, approved only when both approve; the first refusal decides and withdraws the other', async () => {
    const { gw, client } = await setup({ lead: 'lead-7' });
    const { states, decide } = planGateway(gw);

    const approved = client.submitPlan(PLAN, { approver: 'both', requestId: 'req_b1' });
    await eventually(() => states.get('req_b1.operators'), 'both requests');
    expect(gw.framesOf('request').map((frame) => [frame.request.request_id, frame.request.target])).toEqual([
      ['req_b1', { kind: 'agent', agent: 'lead-7' }],
      ['req_b1.operators', { kind: 'operators' }],
    ]);
    decide('req_b1', 'approved', 'lead-7', 'LGTM');
    // The lead's approval alone lifts nothing: tool calls still wait for the operators' part.
    await eventually(async () => {
      const gated = await client.hook('pre-tool-use', { tool: 'db.migrate' }).catch((error: unknown) => error);
      return (gated as AhpClientError).details?.['request_id'] === 'req_b1.operators' ? gated : undefined;
    }, 'the gate on the operators part');
    decide('req_b1.operators', 'approved', 'op-maria', 'fine');
    const both = await approved;
    expect(both).toMatchObject({ status: 'approved', approved: true });
    expect(both.parts?.map((part) => [part.requestId, part.status, part.decidedBy])).toEqual([
      ['req_b1', 'approved', 'lead-7'],
      ['req_b1.operators', 'approved', 'op-maria'],
    ]);

    const refused = client.submitPlan(PLAN, { approver: 'both', requestId: 'req_b2' });
    await eventually(() => states.get('req_b2.operators'), 'both requests');
    decide('req_b2.operators', 'rejected', 'op-maria', 'not in prod hours');
    await expect(refused).resolves.toMatchObject({ requestId: 'req_b2.operators', status: 'rejected', approved: false, feedback: 'not in prod hours' });
    expect(gw.framesOf('cancel').map((frame) => frame.request_id)).toEqual(['req_b2']);
    expect(states.get('req_b2')?.status).toBe('cancelled');
  });
  it('"both": when the second request cannot be opened, the first is withdrawn and submitPlan rejects', async () => {
    const { gw, client } = await setup({ lead: 'lead-7' });
    const { states } = planGateway(gw);
    const script = gw.script;
    gw.script = (frame, peer, gateway) => {
      if (frame.type === 'request' && frame.request.request_id.endsWith('.operators')) {
        peer.send({ type: 'error', id: frame.id, error: { code: 'E_FORBIDDEN', message: 'not for you', retryable: false } });
        return;
      }
      script(frame, peer, gateway);
    };
    await expect(client.submitPlan(PLAN, { approver: 'both', requestId: 'req_b3' })).rejects.toMatchObject({ code: 'E_FORBIDDEN' });
    expect(gw.framesOf('cancel').map((frame) => frame.request_id)).toEqual(['req_b3']);
    expect(states.get('req_b3')?.status).toBe('cancelled');
  });
});

describe('idle and the inbox', () => {
  it('hands each message to the application once, also when it is delivered again after a reconnect', async () => {
    const { gw, client, push } = await setup();
    // The first gateway never acknowledges the inbox_ack: as if it died before storing it.
    gw.script = () => undefined;
    push(gw.current!, { type: 'inbox', message: message('msg-1') });
    await expect(client.idle()).resolves.toEqual({ kind: 'message', message: message('msg-1') });
    await eventually(() => gw.framesOf('inbox_ack').some((frame) => frame.message_ids.includes('msg-1')), 'an ack for msg-1');

    const waiting = client.idle();
    gw.script = (frame, peer) => void ackInboxAcks(frame, peer);
    gw.current!.terminate();
    const second = await eventually(() => (gw.peers.length === 2 && gw.peers[1]!.sessionId !== undefined ? gw.peers[1] : undefined), 'the reconnect');
    push(second, { type: 'inbox', message: message('msg-1') });
    push(second, { type: 'inbox', message: message('msg-2', { type: 'idle_notification' }) });

    await expect(waiting).resolves.toEqual({ kind: 'message', message: message('msg-2', { type: 'idle_notification' }) });
    await eventually(() => second.frames.filter((frame) => frame.type === 'inbox_ack').length >= 2, 'both acknowledged on the new connection');
    // msg-1 is acknowledged again: the pending inbox_ack is re-sent, and its re-delivery is acknowledged, never returned.
    const acked = new Set(second.frames.flatMap((frame) => (frame.type === 'inbox_ack' ? frame.message_ids : [])));
    expect([...acked].sort()).toEqual(['msg-1', 'msg-2']);
    await expect(client.idle({ timeoutMs: 30 })).resolves.toEqual({ kind: 'timeout' });
  });

  it('sends messages and events, and rejects idle waiters when the client closes', async () => {
    const { gw, client } = await setup();
    gw.script = (frame, peer) => {
      if (frame.type === 'send') {
        peer.send({ type: 'ack', id: frame.id, result: { kind: 'message', message: { id: 'msg-s', from: TEST_AGENT.id, sent_at: NOW, metadata: {}, ...frame.message } } });
      } else if (frame.type === 'event') {
        peer.send({ type: 'ack', id: frame.id });
      }
    };
    await expect(client.send('lead', 'done with s1', { type: 'idle_notification' })).resolves.toMatchObject({ id: 'msg-s', to: 'lead', type: 'idle_notification' });
    await client.report({ kind: 'control_signal', control_signal: { step_id: 's1', control: 'step_done', format: 'structured' } });
    expect(gw.framesOf('event')[0]!.event.kind).toBe('control_signal');
    await expect(client.send('lead', 'x', { type: 'shutdown_request' as never })).rejects.toMatchObject({ code: 'E_INVALID_FRAME' });

    const waiting = expect(client.idle()).rejects.toMatchObject({ code: 'E_CLOSED' });
    await client.close();
    await waiting;
  });
});

describe('requests addressed to this agent', () => {
  function shutdownRequest(id: string): ProtocolState {
    return { request_id: id, type: 'shutdown', sender: 'lead', target: { kind: 'agent', agent: TEST_AGENT.id }, status: 'pending', payload: { reason: 'done' }, created_at: NOW, updated_at: NOW };
  }

  it('holds a request until a handler registers; an approved shutdown ends the idle loop and disconnects', async () => {
    const { gw, client, push } = await setup();
    gw.script = (frame, peer) => {
      if (ackInboxAcks(frame, peer)) return;
      if (frame.type === 'response') {
        const approved: ProtocolState = { ...shutdownRequest('req_s1'), status: 'approved', updated_at: LATER, decided_by: TEST_AGENT.id, decided_at: LATER };
        peer.send({ type: 'ack', id: frame.id, result: { kind: 'request', request: approved } });
      }
    };
    const idle = client.idle();
    push(gw.current!, { type: 'request_update', request: shutdownRequest('req_s1') });
    push(gw.current!, { type: 'inbox', message: message('msg-q1', { type: 'shutdown_request', metadata: { request_id: 'req_s1' } }) });

    const seen: ProtocolState[] = [];
    client.onRequest('shutdown', (request) => {
      seen.push(request);
      return { approve: true, feedback: 'stopping' };
    });

    await expect(idle).resolves.toMatchObject({ kind: 'shutdown', request: { request_id: 'req_s1', status: 'approved' } });
    expect(seen.map((request) => request.payload)).toEqual([{ reason: 'done' }]);
    expect(gw.framesOf('response')[0]!.response).toEqual({ request_id: 'req_s1', type: 'shutdown_response', approve: true, feedback: 'stopping' });
    expect(gw.framesOf('inbox_ack').flatMap((frame) => frame.message_ids)).toContain('msg-q1');
    await expect(gw.current!.closed).resolves.toBe(1000);
    await eventually(() => client.state === 'closed', 'the client closed');
  });

  it('acknowledges a request that was settled before it arrived, without calling the handler', async () => {
    const { gw, client, push } = await setup();
    gw.script = (frame, peer) => void ackInboxAcks(frame, peer);
    const calls: string[] = [];
    client.onRequest('shutdown', (request) => {
      calls.push(request.request_id);
      return { approve: true };
    });
    push(gw.current!, { type: 'request_update', request: { ...shutdownRequest('req_s2'), status: 'expired', updated_at: LATER, decided_at: LATER } });
    push(gw.current!, { type: 'inbox', message: message('msg-q2', { type: 'shutdown_request', metadata: { request_id: 'req_s2' } }) });
    await eventually(() => gw.framesOf('inbox_ack').some((frame) => frame.message_ids.includes('msg-q2')), 'the ack');
    expect(calls).toEqual([]);
    expect(gw.framesOf('response')).toEqual([]);
  });

  it('answers with reviewPlan and refuses to answer a request it has not received', async () => {
    const { gw, client } = await setup();
    gw.script = (frame, peer) => {
      if (frame.type === 'response') peer.send({ type: 'error', id: frame.id, error: { code: 'E_CONFLICT', message: 'already rejected', retryable: false } });
    };
    await expect(client.reviewPlan('req_p9', true, 'LGTM')).rejects.toMatchObject({ code: 'E_CONFLICT' });
    expect(gw.framesOf('response')[0]!.response).toEqual({ request_id: 'req_p9', type: 'plan_approval_response', approve: true, feedback: 'LGTM' });
    await expect(client.answerRequest('req_unknown', { approve: true })).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
  });

  describe('the default shutdown policy (no onRequest handler)', () => {
    /** The gateway's part: acknowledges inbox acks, and answers every response with the request settled accordingly. */
    function decideOnResponse(gw: ScriptedGateway): void {
      gw.script = (frame, peer) => {
        if (ackInboxAcks(frame, peer)) return;
        if (frame.type !== 'response') return;
        const { request_id, approve, feedback } = frame.response;
        const settled: ProtocolState = {
          ...shutdownRequest(request_id),
          status: approve ? 'approved' : 'rejected',
          updated_at: LATER,
          decided_by: TEST_AGENT.id,
          decided_at: LATER,
          ...(feedback === undefined ? {} : { feedback }),
        };
        peer.send({ type: 'ack', id: frame.id, result: { kind: 'request', request: settled } });
      };
    }

    function ask(gw: ScriptedGateway, push: (peer: GatewayPeer, frame: PushBody) => void, id: string): void {
      push(gw.current!, { type: 'request_update', request: shutdownRequest(id) });
      push(gw.current!, { type: 'inbox', message: message(`msg-${id}`, { type: 'shutdown_request', metadata: { request_id: id } }) });
    }

    it('refuses with the reason while a tool call runs, approves once idle, and then disconnects', async () => {
      const { gw, client, push } = await setup();
      decideOnResponse(gw);
      let finishTool!: () => void;
      const tool = client.trackToolCall('db.migrate', () => new Promise<string>((resolve) => (finishTool = () => resolve('migrated'))));
      expect(client.runningToolCalls).toEqual(['db.migrate']);

      ask(gw, push, 'req_busy');
      await eventually(() => gw.framesOf('response')[0], 'the refusal');
      expect(gw.framesOf('response')[0]!.response).toEqual({
        request_id: 'req_busy',
        type: 'shutdown_response',
        approve: false,
        feedback: 'busy: 1 tool call running (db.migrate); ask again once it has finished',
      });
      expect(client.state).toBe('open');
      finishTool();
      await expect(tool).resolves.toBe('migrated');
      expect(client.runningToolCalls).toEqual([]);

      const idle = client.idle();
      ask(gw, push, 'req_idle');
      await expect(idle).resolves.toMatchObject({ kind: 'shutdown', request: { request_id: 'req_idle', status: 'approved' } });
      expect(gw.framesOf('response')[1]!.response).toEqual({ request_id: 'req_idle', type: 'shutdown_response', approve: true, feedback: 'idle: no tool call is running; shutting down' });
      await expect(gw.current!.closed).resolves.toBe(1000);
    });

    it('starts no tool call while its approval of a shutdown awaits the gateway, and none once it is approved', async () => {
      const { gw, client, push } = await setup();
      // The gateway holds its acknowledgement of the approval until the test lets it go.
      let acknowledge!: () => void;
      const acknowledged = new Promise<void>((resolve) => (acknowledge = resolve));
      decideOnResponse(gw);
      const decide = gw.script!;
      gw.script = (frame, peer, gateway) => {
        if (frame.type === 'response') void acknowledged.then(() => decide(frame, peer, gateway));
        else decide(frame, peer, gateway);
      };
      ask(gw, push, 'req_race');
      await eventually(() => gw.framesOf('response')[0], 'the approval to be sent');
      expect(gw.framesOf('response')[0]!.response).toMatchObject({ approve: true });

      let ran = false;
      const tool = client.trackToolCall('db.migrate', async () => {
        ran = true;
        return 'migrated';
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(ran).toBe(false);
      expect(client.runningToolCalls).toEqual([]);
      acknowledge();
      await expect(tool).rejects.toMatchObject({ code: 'E_CLOSED' });
      expect(ran).toBe(false);
      expect(client.shutdownApproved).toMatchObject({ request_id: 'req_race', status: 'approved' });
    });

    it('leaves the request to a handler registered right after connect, and to nobody with shutdownPolicy "hold"', async () => {
      const { gw, client, push } = await setup();
      decideOnResponse(gw);
      client.onRequest('shutdown', () => ({ approve: false, feedback: 'mine to decide' }));
      ask(gw, push, 'req_h1');
      await eventually(() => gw.framesOf('response')[0], 'the handler answer');
      expect(gw.framesOf('response')[0]!.response).toMatchObject({ approve: false, feedback: 'mine to decide' });

      const held = await setup({ shutdownPolicy: 'hold' });
      decideOnResponse(held.gw);
      ask(held.gw, held.push, 'req_h2');
      await expect(held.client.idle({ timeoutMs: 200 })).resolves.toEqual({ kind: 'timeout' });
      expect(held.gw.framesOf('response')).toEqual([]);
      held.client.onRequest('shutdown', () => ({ approve: false, feedback: 'later' }));
      await eventually(() => held.gw.framesOf('response')[0], 'the late handler answer');
    });

    it('takes a policy function from the options', async () => {
      const { gw, client, push } = await setup({ shutdownPolicy: (request) => ({ approve: false, feedback: `not now: ${request.payload.reason ?? ''}` }) });
      decideOnResponse(gw);
      ask(gw, push, 'req_f');
      await eventually(() => gw.framesOf('response')[0], 'the answer');
      expect(gw.framesOf('response')[0]!.response).toMatchObject({ approve: false, feedback: 'not now: done' });
      expect(client.state).toBe('open');
    });
  });
});
