// Starts: a private Redis and one gateway process (no worker: nothing here evaluates hooks).
// Regression tests for the two issues docs/reliability.md §5 used to list, reproduced step by step
// as written there, with the real SDK over a transport that injects the fault:
// - KI-1: the `ack` of a `send` is lost with the connection; the SDK reconnects and re-sends the
//   frame; the recipient must get the message once.
// - KI-2: the approver's first answer fails with the gateway's retryable E_UNAVAILABLE while its
//   socket stays up; the answer must still reach the gateway and the plan be approved.
import { connect, type AhpClient, type TransportFactory } from '@ahp/sdk';
import { resolveTransport } from '@ahp/sdk/transport';
import type { Plan } from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from './harness.js';

const PLAN: Plan = { title: 'Speed up the orders report', steps: [{ id: 's1', description: 'add an index', dependencies: [], status: 'pending', tools_expected: [] }] };

describe('the known issues of docs/reliability.md §5, fixed', () => {
  let system: System;
  const clients: AhpClient[] = [];

  beforeAll(async () => {
    system = await startSystem({
      name: 'known-issues',
      gateways: 1,
      workers: 0,
      agents: [
        { id: 'alice', name: 'Alice', team: 'orders', role: 'teammate' },
        { id: 'bob', name: 'Bob', team: 'orders', role: 'teammate' },
        { id: 'lead', name: 'Lead', team: 'orders', role: 'lead' },
        { id: 'dev', name: 'Dev', team: 'orders', role: 'teammate' },
      ],
    });
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await system?.stop();
  });

  async function agent(id: string, transport?: TransportFactory): Promise<AhpClient> {
    const client = await connect({
      url: system.stack.gatewayUrls()[0]!,
      token: system.token(id),
      reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
      ...(transport === undefined ? {} : { transport }),
    });
    clients.push(client);
    return client;
  }

  it('KI-1: a send re-sent after a mid-send reconnect is delivered once', async () => {
    // Step 1: alice's transport drops the connection instead of handing over the first `ack` of a send.
    const base = await resolveTransport();
    let dropped = 0;
    const dropFirstSendAck: TransportFactory = (options, handlers) => {
      const inner = base(options, {
        ...handlers,
        message(text) {
          if (dropped === 0 && text.includes('"kind":"message"')) {
            dropped += 1;
            inner.terminate('test: the ack of the send is lost');
            return;
          }
          handlers.message(text);
        },
      });
      return inner;
    };
    const alice = await agent('alice', dropFirstSendAck);
    const bob = await agent('bob');

    // Step 2: resolves once, after the SDK reconnected and re-sent the frame.
    const sent = await alice.send('bob', 'hello bob');
    expect(dropped).toBe(1);
    // A marker sent afterwards on the same connection lands behind any copy of the first message.
    const marker = await alice.send('bob', 'marker');

    // Step 3: bob reads until the marker; before the fix he got "hello bob" twice, under two ids.
    const received: { id: string; content: string }[] = [];
    while (!received.some((message) => message.id === marker.id)) {
      const next = await bob.idle({ timeoutMs: 20_000 });
      if (next.kind !== 'message') throw new Error(`bob's idle loop ended with ${next.kind}`);
      received.push({ id: next.message.id, content: next.message.content });
    }
    expect(received).toEqual([
      { id: sent.id, content: 'hello bob' },
      { id: marker.id, content: 'marker' },
    ]);
  });

  it('KI-2: an approval survives the approver’s failed first answer', async () => {
    // Step 1: the lead's first `response` frame is not sent; the SDK gets the gateway's answer to a failed Redis call instead.
    const base = await resolveTransport();
    let intercepted = 0;
    const failFirstResponse: TransportFactory = (options, handlers) => {
      const inner = base(options, handlers);
      return {
        seesPings: inner.seesPings,
        close: (code, reason) => inner.close(code, reason),
        terminate: (reason) => inner.terminate(reason),
        send(text) {
          const frame = JSON.parse(text) as { type?: string; id?: string };
          if (frame.type !== 'response' || intercepted > 0) return inner.send(text);
          intercepted += 1;
          const reply = {
            type: 'error',
            id: frame.id,
            error: { code: 'E_UNAVAILABLE', message: 'deciding the request failed; retry shortly', retryable: true, retry_after_ms: 1000 },
          };
          queueMicrotask(() => handlers.message(JSON.stringify(reply)));
          return true;
        },
      };
    };
    const lead = await agent('lead', failFirstResponse);
    const reviewed: string[] = [];
    lead.onRequest('plan_approval', (request) => {
      reviewed.push(request.request_id);
      return { approve: true, feedback: 'LGTM' };
    });
    const dev = await agent('dev');

    // Steps 2 and 3: before the fix this resolved `expired` at the deadline; the handler ran once.
    const decision = await dev.submitPlan(PLAN, { target: 'lead', deadlineMs: 15_000 });
    expect(intercepted).toBe(1);
    expect(decision).toMatchObject({ status: 'approved', approved: true, decidedBy: 'lead', feedback: 'LGTM' });
    expect(reviewed).toEqual([decision.requestId]);
    const stored = await system.stores.requests.get(decision.requestId);
    expect(stored?.state.status).toBe('approved');
  });
});
