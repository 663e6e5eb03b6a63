/**
 * What one agent may make a gateway read, end to end: a real gateway (Nest app on port 0, in this
 * process), the run's private Redis, BullMQ, real `ws` clients. The test plays the oracle worker.
 *
 * - a frame nested too deep is refused with its typed error and its id without `JSON.parse` ever
 *   seeing it;
 * - a flood beyond the agent's input budget gets the connection closed with 4006 while another
 *   agent keeps getting its decisions; a connection that keeps sending unreadable frames is closed
 *   with 4400;
 * - a frame over `max_frame_bytes` is answered `E_FRAME_TOO_LARGE` and the connection stays, up
 *   to twice the limit; beyond, the transport closes with 1009;
 * - a burst of 300 hooks gets exactly `max_in_flight` (256) admitted and the rest `E_RATE_LIMITED`;
 * - a burst of `inbox_ack` frames is answered frame by frame and removes every message.
 */
import { randomUUID } from 'node:crypto';
import { CLOSE_CODES, PROTOCOL_VERSION, type ErrorFrame, type ServerFrame } from '@ahp/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AgentClient } from './support/agent-client.js';
import { connectReady, validContext } from './support/agent-client.js';
import { decideAsWorker } from './support/decisions.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestGateway, type TestStore } from './support/test-gateway.js';

const MAX_FRAME_BYTES = 8192;
const FRAME_BURST = 400;
const MAX_IN_FLIGHT = 256;

let gw: TestGateway;
let store: TestStore;
const clients: AgentClient[] = [];

async function ready(agentId: string): Promise<AgentClient> {
  const { client } = await connectReady(gw.wsUrl, gw.agents[agentId]!.token);
  clients.push(client);
  return client;
}

/** Waits until `count` frames matching `predicate` arrived on `client`. */
async function received(client: AgentClient, count: number, predicate: (frame: ServerFrame) => boolean): Promise<ServerFrame[]> {
  return vi.waitFor(
    () => {
      const frames = client.received.filter(predicate);
      if (frames.length < count) throw new Error(`${frames.length} of ${count} frames so far`);
      return frames;
    },
    { timeout: 20_000, interval: 20 },
  );
}

/** An agent that does hook round trips one after the other while a test runs; every reply must be its decision. */
class Bystander {
  rounds = 0;
  readonly failures: string[] = [];
  private running = true;
  private readonly done: Promise<void>;

  constructor(private readonly client: AgentClient) {
    this.done = this.loop();
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const hook = this.client.hook('pre-tool-use');
      await decideAsWorker(store, hook.id, 'pre-tool-use');
      const reply = await hook.reply;
      if (reply.type === 'decision' && reply.id === hook.id && reply.decision.allowed) this.rounds += 1;
      else this.failures.push(JSON.stringify(reply).slice(0, 300));
    }
  }

  async stop(): Promise<{ rounds: number; failures: string[] }> {
    this.running = false;
    await this.done;
    return { rounds: this.rounds, failures: this.failures };
  }
}

beforeAll(async () => {
  gw = await startTestGateway({
    name: 'input-budget',
    // One attacker per test: the budgets are per agent, and no test should inherit another's.
    agents: [
      { id: 'honest', name: 'Honest', token: newToken(), team: 'red', role: 'lead' },
      ...Array.from({ length: 8 }, (_, i) => ({ id: `mallory-${i}`, name: `Mallory ${i}`, token: newToken(), team: 'red', role: 'teammate' as const })),
    ],
    env: {
      AHP_MAX_FRAME_BYTES: String(MAX_FRAME_BYTES),
      AHP_AGENT_INPUT_FRAMES_PER_S: '20',
      AHP_AGENT_INPUT_FRAME_BURST: String(FRAME_BURST),
      AHP_MAX_IN_FLIGHT: String(MAX_IN_FLIGHT),
      AHP_LOG_LEVEL: 'info',
    },
  });
  store = await openTestStore(gw.keyPrefix, testLogger());
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await gw?.stop();
  await store?.close();
});

describe('frame shape', () => {
  it('refuses a frame nested too deep with E_INVALID_FRAME and its id, without JSON.parse running on it', async () => {
    const mallory = await ready('mallory-0');
    const hookId = randomUUID();
    const deep = `{"type":"hook","id":"${hookId}","trigger":"pre-tool-use","context":{"a":${'['.repeat(3000)}${']'.repeat(3000)}}}`;
    expect(Buffer.byteLength(deep)).toBeLessThan(MAX_FRAME_BYTES);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      mallory.send(deep);
      const refused = await mallory.error(hookId);
      expect(refused.error).toMatchObject({ code: 'E_INVALID_FRAME', retryable: false, details: { type: 'hook' } });
      expect(refused.error.message).toContain('nested deeper than 64 levels');
      expect(parse.mock.calls.some(([text]) => text === deep)).toBe(false);
    } finally {
      parse.mockRestore();
    }
    // Nothing was recorded for it, and the connection serves the next hook.
    expect(await store.queue.queueFor(hookId).getJob(hookId)).toBeUndefined();
    expect(mallory.isOpen).toBe(true);
    const next = mallory.hook('pre-tool-use');
    await decideAsWorker(store, next.id, 'pre-tool-use');
    expect((await next.reply).type).toBe('decision');
  });
});

describe('input budget', () => {
  it('closes a flooding connection with 4006 while another agent keeps getting its decisions', async () => {
    const honest = await ready('honest');
    const bystander = new Bystander(honest);
    const mallory = await ready('mallory-1');
    const flood = 3 * FRAME_BURST;
    for (let i = 0; i < flood; i++) mallory.send({ type: 'inbox_ack', id: `flood-${i}`, message_ids: [`msg_${i}`] });
    const closed = await mallory.closed;
    expect(closed.code).toBe(CLOSE_CODES.CONNECTION_RATE_LIMITED);
    // Told why before the close; and no frame past the budget was served.
    expect(mallory.received.find((frame): frame is ErrorFrame => frame.type === 'error' && frame.id === null)?.error).toMatchObject({
      code: 'E_RATE_LIMITED',
      details: { overrun: 'frames' },
    });
    // (Most were not even answered: their replies found the socket closing.)
    expect(mallory.received.filter((frame) => frame.type === 'ack').length).toBeLessThanOrEqual(FRAME_BURST);

    // The other agent's round trips went on during the flood and still do.
    const after = honest.hook('post-tool-use');
    await decideAsWorker(store, after.id, 'post-tool-use');
    expect((await after.reply).type).toBe('decision');
    const { rounds, failures } = await bystander.stop();
    expect(failures).toEqual([]);
    expect(rounds).toBeGreaterThan(0);
    expect(honest.isOpen).toBe(true);
  });

  it('keeps counting across a reconnect: the budget belongs to the agent, not to the connection', async () => {
    const first = await ready('mallory-2');
    for (let i = 0; i < FRAME_BURST - 10; i++) first.send({ type: 'inbox_ack', id: `a-${i}`, message_ids: ['msg_x'] });
    await received(first, FRAME_BURST - 10, (frame) => frame.type === 'ack');
    await first.close();
    const second = await ready('mallory-2');
    for (let i = 0; i < 50; i++) second.send({ type: 'inbox_ack', id: `b-${i}`, message_ids: ['msg_x'] });
    expect((await second.closed).code).toBe(CLOSE_CODES.CONNECTION_RATE_LIMITED);
  });

  it('closes a connection that keeps sending unreadable frames with 4400, after answering each', async () => {
    const mallory = await ready('mallory-3');
    for (let i = 0; i < 150; i++) mallory.send('not json');
    expect((await mallory.closed).code).toBe(CLOSE_CODES.PROTOCOL_VIOLATION);
    const errors = mallory.received.filter((frame): frame is ErrorFrame => frame.type === 'error');
    expect(errors.length).toBeGreaterThanOrEqual(100);
    expect(errors.length).toBeLessThan(150);
    expect(errors.every((frame) => frame.error.code === 'E_BAD_FRAME')).toBe(true);
  });
});

describe('frame size', () => {
  it('answers a frame over max_frame_bytes with E_FRAME_TOO_LARGE and keeps the connection; beyond twice the limit closes with 1009', async () => {
    const mallory = await ready('mallory-4');
    const hookId = randomUUID();
    mallory.send({ type: 'hook', id: hookId, trigger: 'stop', context: { blob: 'x'.repeat(MAX_FRAME_BYTES) } });
    expect((await mallory.error(null)).error).toMatchObject({ code: 'E_FRAME_TOO_LARGE', retryable: false, details: { max_frame_bytes: MAX_FRAME_BYTES } });
    expect(await store.queue.queueFor(hookId).getJob(hookId)).toBeUndefined();
    expect(mallory.isOpen).toBe(true);
    expect(await mallory.request({ type: 'inbox_ack', id: 'still-here', message_ids: ['msg_x'] })).toEqual({ type: 'ack', id: 'still-here' });

    mallory.send({ type: 'hook', id: randomUUID(), trigger: 'stop', context: { blob: 'x'.repeat(2 * MAX_FRAME_BYTES) } });
    expect((await mallory.closed).code).toBe(1009);
  });
});

describe('max_in_flight', () => {
  it('admits exactly max_in_flight hooks of a burst sent at once and refuses the rest with E_RATE_LIMITED', async () => {
    const mallory = await ready('mallory-5');
    const ids = Array.from({ length: MAX_IN_FLIGHT + 44 }, () => randomUUID());
    for (const id of ids) mallory.send({ type: 'hook', id, trigger: 'post-tool-use', context: validContext('post-tool-use') });
    const refusals = (await received(mallory, 44, (frame) => frame.type === 'error')) as ErrorFrame[];
    expect(refusals.map((frame) => frame.error.code)).toEqual(Array.from({ length: 44 }, () => 'E_RATE_LIMITED'));
    expect(refusals[0]!.error.message).toContain(`more than ${MAX_IN_FLIGHT} hooks`);
    const refused = new Set(refusals.map((frame) => frame.id));
    const admitted = ids.filter((id) => !refused.has(id));
    expect(admitted).toHaveLength(MAX_IN_FLIGHT);
    // The refused were never enqueued; every admitted one gets its decision.
    for (const id of refused) expect(await store.queue.queueFor(id!).getJob(id!)).toBeUndefined();
    await Promise.all(admitted.map((id) => decideAsWorker(store, id, 'post-tool-use')));
    await received(mallory, MAX_IN_FLIGHT, (frame) => frame.type === 'decision');
    expect(mallory.received.filter((frame) => frame.type === 'error')).toHaveLength(44);

    // The places are free again once the decisions went out.
    const again = mallory.hook('post-tool-use');
    await decideAsWorker(store, again.id, 'post-tool-use');
    expect((await again.reply).type).toBe('decision');
  });
});

describe('inbox_ack', () => {
  it('answers every frame of a burst of acks and removes every message', async () => {
    const honest = await ready('honest');
    const mallory = await ready('mallory-6');
    const sent: string[] = [];
    for (let i = 0; i < 20; i++) {
      const reply = await honest.request({ type: 'send', id: `s-${i}`, message: { to: 'mallory-6', content: `m${i}`, type: 'message' } });
      if (reply.type !== 'ack' || reply.result?.kind !== 'message') throw new Error(JSON.stringify(reply));
      sent.push(reply.result.message.id);
    }
    await received(mallory, 20, (frame) => frame.type === 'inbox');
    const frames = sent.map((id, i) => ({ type: 'inbox_ack' as const, id: `ack-${i}`, message_ids: [id, sent[(i + 1) % sent.length]!] }));
    for (const frame of frames) mallory.send(frame);
    const acks = await received(mallory, frames.length, (frame) => frame.type === 'ack' && frame.id.startsWith('ack-'));
    expect(acks.map((frame) => (frame as { id: string }).id).sort()).toEqual(frames.map((frame) => frame.id).sort());
    expect(await store.stores.inboxes.pending('mallory-6')).toEqual([]);
    expect(mallory.received.filter((frame) => frame.type === 'error')).toEqual([]);
  });
});

describe('hello', () => {
  it('counts hello too: a connection that only says hello again and again is closed once over budget', async () => {
    const mallory = await ready('mallory-7');
    for (let i = 0; i < FRAME_BURST + 10; i++) mallory.send({ type: 'hello', id: `h-${i}`, protocol: PROTOCOL_VERSION, client: { name: 'x', version: '1' } });
    expect((await mallory.closed).code).toBe(CLOSE_CODES.CONNECTION_RATE_LIMITED);
  });
});
