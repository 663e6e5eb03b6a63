/**
 * Rate limits across two real gateways (in-process, port 0) sharing one deployment's Redis keys:
 * an agent's frames and an operator's API calls are counted in one bucket whichever gateway they
 * reach; the refusal is `E_RATE_LIMITED` with `retry_after_ms` (and a 429 with `Retry-After` on
 * the operator API); frames that only remove work are never refused; other subjects are not
 * affected.
 */
import { randomUUID } from 'node:crypto';
import { uniqueKeyPrefix } from '@ahp/embedded-redis/testing';
import { OperatorErrorBodySchema, type ErrorFrame, type ServerFrame } from '@ahp/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectReady, type AgentClient } from './support/agent-client.js';
import { newToken, startTestGateway, type TestAgentEntry, type TestGateway, type TestOperatorEntry } from './support/test-gateway.js';

const AGENTS: TestAgentEntry[] = [
  { id: 'alpha', name: 'Alpha', token: newToken(), team: 'red', role: 'lead' },
  { id: 'beta', name: 'Beta', token: newToken(), team: 'red', role: 'teammate' },
];
const OPERATORS: TestOperatorEntry[] = [
  { id: 'op-ann', name: 'Ann', role: 'admin', token: newToken() },
  { id: 'op-bob', name: 'Bob', role: 'viewer', token: newToken() },
];
/** One token per 20 s: nothing refills while a test runs, so the counts are exact. */
const SLOW = '0.05';
const AGENT_BURST = 4;
const OPERATOR_BURST = 3;

let first: TestGateway;
let second: TestGateway;
const clients: AgentClient[] = [];

beforeAll(async () => {
  const keyPrefix = uniqueKeyPrefix('rate-limits');
  const env = { AHP_AGENT_RATE_PER_S: SLOW, AHP_AGENT_BURST: String(AGENT_BURST), AHP_OPERATOR_RATE_PER_S: SLOW, AHP_OPERATOR_BURST: String(OPERATOR_BURST) };
  first = await startTestGateway({ name: 'rate-limits-1', keyPrefix, agents: AGENTS, operators: OPERATORS, env });
  second = await startTestGateway({ name: 'rate-limits-2', keyPrefix, agents: AGENTS, operators: OPERATORS, env });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await first?.stop();
  await second?.stop();
});

async function ready(gw: TestGateway, agentId: string): Promise<AgentClient> {
  const { client } = await connectReady(gw.wsUrl, gw.agents[agentId]!.token);
  clients.push(client);
  return client;
}

/** An `event` frame: cheap for the gateway, but it writes to Redis, so it counts. */
function event(): { type: 'event'; id: string; event: { kind: 'control_signal'; control_signal: { control: 'step_done'; format: 'structured' } } } {
  return { type: 'event', id: `ev-${randomUUID()}`, event: { kind: 'control_signal', control_signal: { control: 'step_done', format: 'structured' } } };
}

function expectRateLimited(reply: ServerFrame, burst = AGENT_BURST): ErrorFrame['error'] {
  expect(reply.type).toBe('error');
  const { error } = reply as ErrorFrame;
  expect(error).toMatchObject({ code: 'E_RATE_LIMITED', retryable: true, details: { limit: { rate_per_second: 0.05, burst }, subject: 'agent' } });
  expect(error.retry_after_ms).toBeGreaterThan(0);
  expect(error.retry_after_ms).toBeLessThanOrEqual(20_000);
  return error;
}

describe('agent rate limit', () => {
  it('counts one agent’s frames on both gateways in one bucket and refuses the excess with a retry hint', async () => {
    const onFirst = await ready(first, 'alpha');
    const onSecond = await ready(second, 'alpha');
    const replies: ServerFrame[] = [];
    for (let i = 0; i < AGENT_BURST; i++) replies.push(await (i % 2 === 0 ? onFirst : onSecond).request(event()));
    expect(replies.map((reply) => reply.type)).toEqual(Array.from({ length: AGENT_BURST }, () => 'ack'));

    expectRateLimited(await onFirst.request(event()));
    expectRateLimited(await onSecond.request(event()));
    const hook = onSecond.hook('pre-tool-use');
    expectRateLimited(await hook.reply);

    // Frames that only remove work, and the handshake of a new connection, are not counted.
    expect(await onFirst.request({ type: 'inbox_ack', id: 'ack-1', message_ids: ['msg_none'] })).toEqual({ type: 'ack', id: 'ack-1' });
    const third = await ready(second, 'alpha');
    expectRateLimited(await third.request(event()));

    // Another agent has a bucket of its own; the refused connections stay usable.
    const beta = await ready(first, 'beta');
    expect((await beta.request(event())).type).toBe('ack');
    expect(onFirst.isOpen && onSecond.isOpen).toBe(true);
    expect([...onFirst.invalid, ...onSecond.invalid, ...beta.invalid]).toEqual([]);
  });
});

describe('agent rate limit with hooks taking leases', () => {
  const BURST = 40;
  let leasingA: TestGateway;
  let leasingB: TestGateway;

  beforeAll(async () => {
    const keyPrefix = uniqueKeyPrefix('rate-leases');
    const env = { AHP_AGENT_RATE_PER_S: SLOW, AHP_AGENT_BURST: String(BURST) };
    leasingA = await startTestGateway({ name: 'rate-leases-1', keyPrefix, agents: AGENTS, env });
    leasingB = await startTestGateway({ name: 'rate-leases-2', keyPrefix, agents: AGENTS, env });
  });

  afterAll(async () => {
    await leasingA?.stop();
    await leasingB?.stop();
  });

  /** Sends events until one is refused; the number acknowledged. */
  async function drain(client: AgentClient): Promise<number> {
    for (let acked = 0; ; acked++) {
      const reply = await client.request(event());
      if (reply.type !== 'ack') {
        expectRateLimited(reply, BURST);
        return acked;
      }
    }
  }

  it('admits exactly the burst across two gateways when hooks lease tokens that frames then spend', async () => {
    const onA = await ready(leasingA, 'alpha');
    const onB = await ready(leasingB, 'alpha');
    // Two hooks on A: each takes its own token and leases more in open-hook (no worker runs, so
    // they stay pending; their replies are not awaited). Then both gateways drain the bucket:
    // A spends its lease, B its own, and neither admits a frame the bucket did not count.
    const hooks = [onA.hook('pre-tool-use'), onA.hook('pre-tool-use'), onB.hook('pre-tool-use')];
    const ackedA = await drain(onA);
    const ackedB = await drain(onB);
    // A's lease is spent before it asks Redis, so B's drain emptied the bucket for both.
    expect(await drain(onA)).toBe(0);
    expect(hooks.length + ackedA + ackedB).toBe(BURST);
    expectRateLimited(await onB.hook('pre-tool-use').reply, BURST);
    expect([...onA.invalid, ...onB.invalid]).toEqual([]);
  });
});

describe('operator rate limit', () => {
  async function call(gw: TestGateway, operator: string, path = '/v1/operator/me'): Promise<Response> {
    return fetch(`${gw.httpUrl}${path}`, { headers: { authorization: `Bearer ${gw.operators[operator]!.token}` } });
  }

  it('counts one operator’s calls on both gateways and answers the excess 429 with Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < OPERATOR_BURST; i++) statuses.push((await call(i % 2 === 0 ? first : second, 'op-ann')).status);
    expect(statuses).toEqual(Array.from({ length: OPERATOR_BURST }, () => 200));

    for (const gw of [first, second]) {
      const refused = await call(gw, 'op-ann', '/v1/operator/requests');
      expect(refused.status).toBe(429);
      const error = OperatorErrorBodySchema.parse(await refused.json()).error;
      expect(error).toMatchObject({ code: 'E_RATE_LIMITED', retryable: true, details: { subject: 'operator', limit: { burst: OPERATOR_BURST } } });
      expect(error.retry_after_ms).toBeGreaterThan(0);
      expect(Number(refused.headers.get('retry-after'))).toBe(Math.ceil(error.retry_after_ms! / 1000));
    }

    // The other operator is not affected; a wrong token is still a 401, not a 429.
    expect((await call(first, 'op-bob')).status).toBe(200);
    expect((await fetch(`${first.httpUrl}/v1/operator/me`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
  });
});
