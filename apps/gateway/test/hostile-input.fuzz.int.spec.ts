/**
 * A gateway process (`node main.js`, the run's private Redis) under attack, while an honest agent
 * keeps doing hook round trips (the test plays the oracle worker):
 * - property-based: each run opens one attacker connection (with or without hello) and sends
 *   generated frames broken in every way the protocol refuses, text that is not a JSON object, and
 *   binary messages; every one is answered, in order, with its typed error and the frame's id
 *   when it was readable, and the connection stays usable;
 * - a 900 KB frame nested 450,000 deep and one over the frame limit (within twice it) are answered
 *   with their typed errors and the connection stays;
 * - by hand over a raw socket: invalid UTF-8, fragment floods, messages over twice the frame limit, reserved
 *   opcodes, unmasked and malformed frames — each closes that connection with the documented
 *   close code (docs/errors.md);
 * - upgrade requests with thousands of headers get an HTTP answer, not a crash.
 * Throughout, the process stays up, its resident memory stays within a generous bound, and the
 * honest agent's round trips keep succeeding.
 */
import { readFile } from 'node:fs/promises';
import { uniqueKeyPrefix } from '@ahp/embedded-redis/testing';
import type {} from '@ahp/embedded-redis/vitest-global-setup';
import { STANDARD_CLOSE_CODES, type ErrorFrame } from '@ahp/protocol';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent, connectReady, type AgentClient } from './support/agent-client.js';
import { buildGateway, removeBuild, spawnGateway, type GatewayProcess } from './support/built-gateway.js';
import { decideAsWorker } from './support/decisions.js';
import { hostileMessageArb, type HostileMessage } from './support/hostile-frames.js';
import { clientFrame, rawUpgrade } from './support/raw-websocket.js';
import { TokensFile, newToken, openTestStore, redisEnv, testLogger, type TestAgentEntry, type TestStore } from './support/test-gateway.js';

const MAX_FRAME_BYTES = 1024 * 1024;
/** Generous: the gateway holds at most a few frames of 1 MiB per connection; a leak of the attack's volume (tens of MB) would not stay under it for long, an unbounded buffer never. */
const RSS_HEADROOM_KB = 256 * 1024;
const AGENTS: TestAgentEntry[] = [
  { id: 'mallory', name: 'Mallory', token: newToken() },
  { id: 'honest', name: 'Honest', token: newToken() },
];

let buildDir: string;
let tokens: TokensFile;
let gateway: GatewayProcess;
let store: TestStore;
let port: number;
let url: string;
let baselineRssKb: number;
let peakRssKb = 0;
let sampler: NodeJS.Timeout | undefined;

async function rssKb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? Number.NaN);
}

/** An agent that does hook round trips one after the other until stopped, counting them. */
class HonestAgent {
  rounds = 0;
  readonly failures: string[] = [];
  private running = true;
  private readonly done: Promise<void>;

  constructor(private readonly client: AgentClient) {
    this.done = this.loop();
  }

  private async loop(): Promise<void> {
    while (this.running) {
      try {
        const hook = this.client.hook('pre-tool-use');
        await decideAsWorker(store, hook.id, 'pre-tool-use');
        const reply = await hook.reply;
        if (reply.type === 'decision' && reply.decision.allowed) this.rounds += 1;
        else this.failures.push(JSON.stringify(reply).slice(0, 300));
      } catch (error) {
        this.failures.push(String(error));
        return;
      }
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }
}

let honest: HonestAgent;
let honestClient: AgentClient;

beforeAll(async () => {
  buildDir = await buildGateway();
  tokens = await TokensFile.create(AGENTS);
  const keyPrefix = uniqueKeyPrefix('hostile-input');
  gateway = spawnGateway(buildDir, {
    // The run's Redis, or its cluster: the one openTestStore decides on below.
    ...redisEnv(),
    PORT: '0',
    HOST: '127.0.0.1',
    AHP_KEY_PREFIX: keyPrefix,
    AHP_AGENT_TOKENS_FILE: tokens.path,
    AHP_HOOK_DEADLINE_MS: '60000',
    AHP_MAX_FRAME_BYTES: String(MAX_FRAME_BYTES),
    AHP_LOG_LEVEL: 'warn',
  });
  const ready = await gateway.ready;
  port = ready['port'] as number;
  url = `ws://127.0.0.1:${port}/v1/agents`;
  store = await openTestStore(keyPrefix, testLogger());
  baselineRssKb = await rssKb(gateway.child.pid!);
  sampler = setInterval(() => {
    void rssKb(gateway.child.pid!).then(
      (kb) => {
        peakRssKb = Math.max(peakRssKb, kb);
      },
      () => undefined,
    );
  }, 100);
  honestClient = (await connectReady(url, AGENTS[1]!.token)).client;
  honest = new HonestAgent(honestClient);
}, 60_000);

afterAll(async () => {
  clearInterval(sampler);
  await honest?.stop().catch(() => undefined);
  await honestClient?.close().catch(() => undefined);
  if (gateway?.child.exitCode === null) gateway.child.kill('SIGKILL');
  await store?.close();
  await tokens?.remove();
  if (buildDir !== undefined) await removeBuild(buildDir);
});

function send(client: AgentClient, message: HostileMessage): void {
  if (message.kind === 'binary' && 'bytes' in message) client.ws.send(message.bytes, { binary: true });
  else if ('text' in message) client.ws.send(message.text);
}

describe('hostile input against a gateway process', () => {
  it('answers every generated hostile message with its typed error, in order, and keeps the connection', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(hostileMessageArb, { minLength: 1, maxLength: 4 }), async (sayHello, messages) => {
        run += 1;
        const attacker = await connectAgent(url, { token: AGENTS[0]!.token });
        try {
          if (sayHello) await attacker.hello();
          const before = attacker.received.length;
          for (const message of messages) send(attacker, message);
          // Errors about unreadable frames are answered synchronously, so they all precede the marker's reply.
          const marker = `marker-${run}`;
          attacker.send({ type: 'inbox_ack', id: marker, message_ids: ['msg_marker'] });
          const markerReply = await attacker.reply(marker);
          expect(markerReply.type).toBe(sayHello ? 'ack' : 'error');
          const errors = attacker.received.slice(before).filter((frame): frame is ErrorFrame => frame.type === 'error' && frame.id !== marker);
          expect(errors.map((frame) => ({ code: frame.error.code, id: frame.id }))).toEqual(messages.map((message) => ({ code: message.expected, id: message.id })));
          expect(attacker.invalid).toEqual([]);
          expect(attacker.isOpen).toBe(true);
        } finally {
          await attacker.close();
        }
      }),
      { numRuns: 40 },
    );
  });

  const VIOLATIONS: { name: string; frames: () => Buffer[]; code: number }[] = [
    { name: 'a text message that is not UTF-8', frames: () => [clientFrame(0x1, Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]))], code: 1007 },
    {
      name: 'a flood of empty fragments',
      frames: () => [clientFrame(0x1, Buffer.from('{'), { fin: false }), Buffer.concat(Array.from({ length: 17_000 }, () => clientFrame(0x0, Buffer.alloc(0), { fin: false })))],
      code: 1008,
    },
    {
      name: 'fragments adding up to more than twice the frame limit',
      frames: () => [clientFrame(0x1, Buffer.alloc(60_000, 0x20), { fin: false }), ...Array.from({ length: 40 }, () => clientFrame(0x0, Buffer.alloc(60_000, 0x20), { fin: false }))],
      code: 1009,
    },
    { name: 'one frame announcing more than maxPayload', frames: () => [clientFrame(0x1, undefined, { declaredLength: MAX_FRAME_BYTES * 4 })], code: 1009 },
    { name: 'a reserved opcode', frames: () => [clientFrame(0x3, Buffer.from('{}'))], code: 1002 },
    { name: 'an unmasked frame', frames: () => [clientFrame(0x1, Buffer.from('{}'), { mask: false })], code: 1002 },
    { name: 'RSV1 without a negotiated extension', frames: () => [clientFrame(0x1, Buffer.from('{}'), { rsv: 4 })], code: 1002 },
    { name: 'a continuation without a first fragment', frames: () => [clientFrame(0x0, Buffer.from('{}'))], code: 1002 },
    { name: 'a fragmented ping', frames: () => [clientFrame(0x9, Buffer.from('x'), { fin: false })], code: 1002 },
    { name: 'a ping longer than 125 bytes', frames: () => [clientFrame(0x9, Buffer.alloc(126))], code: 1002 },
  ];

  it('refuses a 900 KB frame nested 450,000 levels deep with its typed error and id, and one over the frame limit with E_FRAME_TOO_LARGE, keeping the connection', async () => {
    const attacker = await connectAgent(url, { token: AGENTS[0]!.token });
    try {
      await attacker.hello();
      const hookId = '0b5f0d0e-8c1a-4c59-9d57-2f3b1b1f3c11';
      attacker.send(`{"type":"hook","id":"${hookId}","trigger":"stop","context":{"a":${'['.repeat(450_000)}${']'.repeat(450_000)}}}`);
      expect((await attacker.error(hookId)).error).toMatchObject({ code: 'E_INVALID_FRAME', details: { type: 'hook', issues: [{ path: '' }] } });
      // Over the limit but within twice it: read, discarded unread, answered; the connection stays.
      attacker.send({ type: 'hook', id: hookId, trigger: 'stop', context: { blob: 'x'.repeat(MAX_FRAME_BYTES + 200_000) } });
      expect((await attacker.error(null)).error).toMatchObject({ code: 'E_FRAME_TOO_LARGE', details: { max_frame_bytes: MAX_FRAME_BYTES } });
      const marker = 'after-large';
      attacker.send({ type: 'inbox_ack', id: marker, message_ids: ['msg_marker'] });
      expect(await attacker.reply(marker)).toEqual({ type: 'ack', id: marker });
      expect(attacker.isOpen).toBe(true);
      expect(attacker.invalid).toEqual([]);
    } finally {
      await attacker.close();
    }
  });

  it.each(VIOLATIONS)('closes a connection that sends $name with $code', async ({ frames, code }) => {
    const upgrade = await rawUpgrade(port, '/v1/agents', [`Authorization: Bearer ${AGENTS[0]!.token}`]);
    expect(upgrade.status).toBe(101);
    for (const frame of frames()) upgrade.socket.write(frame);
    expect(await upgrade.closeCode).toBe(code);
    expect(STANDARD_CLOSE_CODES[code]).toBeDefined();
    upgrade.socket.destroy();
  });

  it('answers an upgrade with thousands of headers over HTTP and keeps serving', async () => {
    const flood = Array.from({ length: 5000 }, (_, i) => `X-Flood-${i}: ${'v'.repeat(16)}`);
    const refused = await rawUpgrade(port, '/v1/agents', [`Authorization: Bearer ${AGENTS[0]!.token}`, ...flood]);
    expect(refused.status).toBe(431);
    refused.socket.destroy();

    // Many small headers within Node's size limit: an ordinary upgrade (the extra headers are ignored).
    const many = Array.from({ length: 1500 }, (_, i) => `x${i}: v`);
    const accepted = await rawUpgrade(port, '/v1/agents', [`Authorization: Bearer ${AGENTS[0]!.token}`, ...many]);
    expect(accepted.status).toBe(101);
    accepted.socket.destroy();
  });

  it('stayed up with bounded memory, and the honest agent’s round trips kept working during and after the attack', async () => {
    await honest.stop();
    expect(honest.failures).toEqual([]);
    expect(honest.rounds).toBeGreaterThan(0);
    const after = honestClient.hook('pre-tool-use');
    await decideAsWorker(store, after.id, 'pre-tool-use');
    expect((await after.reply).type).toBe('decision');

    expect(gateway.child.exitCode).toBeNull();
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    peakRssKb = Math.max(peakRssKb, await rssKb(gateway.child.pid!));
    expect(peakRssKb).toBeLessThan(baselineRssKb + RSS_HEADROOM_KB);
    expect(gateway.stderrLines.filter((line) => /"level":"error"|uncaught|unhandled/i.test(line))).toEqual([]);
  });
});
