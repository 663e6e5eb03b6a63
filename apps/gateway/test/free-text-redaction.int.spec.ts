/**
 * Credentials in free text never reach Redis: a real gateway (in-process) and the run's private
 * Redis; agents write credentials into every free-text field the gateway stores — an event's
 * reason and a verification summary, an inbox message's content and metadata, a plan's steps, a
 * shutdown reason, an answer's feedback, an operator's decision feedback, a signal response's
 * details — and then every key under the test's prefix is read back (hashes, lists, sets, sorted
 * sets, streams, strings, BullMQ's included): none of the credentials is there, the redaction
 * marker is, and every write was acknowledged (redaction does not refuse anything).
 */
import { randomUUID } from 'node:crypto';
import { REDACTED, type Plan, type ServerFrame } from '@ahp/protocol';
import { scanKeys } from '@ahp/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectReady, type AgentClient } from './support/agent-client.js';
import { decideAsWorker, promptSignal } from './support/decisions.js';
import { newToken, openTestStore, startTestGateway, type TestAgentEntry, type TestGateway, type TestOperatorEntry, type TestStore } from './support/test-gateway.js';
import { JsonLogger } from '../src/logging/json-logger.js';

/** The secret part of each credential: none of these may appear anywhere in Redis. */
const SECRETS = {
  github: `ghp_${'Gh1tHubT0ken'.repeat(3)}`,
  aws: 'AKIAIOSFODNN7EXAMPL3',
  slack: 'xoxb-123456789012-1234567890123-SlackS3cretValue',
  openai: `sk-proj-${'OpenAiS3cret'.repeat(3)}`,
  bearer: 'BearerS3cretValue.abc',
  urlPassword: 'UrlPassw0rdS3cret',
  password: 'Hunter2Hunter2S3cret',
  keyBody: 'MIIEowIBAAKCAQEAprivateKeyBodyS3cret',
};

/** A paragraph an agent might write, with every kind of credential in it. */
const LEAKY = [
  `export GITHUB_TOKEN=${SECRETS.github}`,
  `aws id ${SECRETS.aws}, slack ${SECRETS.slack}, openai ${SECRETS.openai}`,
  `curl -H "Authorization: Bearer ${SECRETS.bearer}" https://deploy:${SECRETS.urlPassword}@ci.example.com/run`,
  `login with password=${SECRETS.password}`,
  `-----BEGIN RSA PRIVATE KEY-----\n${SECRETS.keyBody}\n-----END RSA PRIVATE KEY-----`,
].join('\n');

const AGENTS: TestAgentEntry[] = [
  { id: 'lead', name: 'Lead', token: newToken(), team: 'red', role: 'lead' },
  { id: 'mate', name: 'Mate', token: newToken(), team: 'red', role: 'teammate' },
];
const OPERATORS: TestOperatorEntry[] = [{ id: 'op-root', name: 'Root', role: 'admin', token: newToken() }];

let gw: TestGateway;
let store: TestStore;
let lead: AgentClient;
let mate: AgentClient;

beforeAll(async () => {
  gw = await startTestGateway({ name: 'free-text-redaction', agents: AGENTS, operators: OPERATORS });
  store = await openTestStore(gw.keyPrefix, new JsonLogger({ level: 'error', write: () => undefined }));
  lead = (await connectReady(gw.wsUrl, AGENTS[0]!.token)).client;
  mate = (await connectReady(gw.wsUrl, AGENTS[1]!.token)).client;
});

afterAll(async () => {
  lead?.close();
  mate?.close();
  await store?.close();
  await gw?.stop();
});

/** Every value under the test's prefix, as text. */
async function dumpRedis(): Promise<{ keys: string[]; text: string }> {
  const keys: string[] = [];
  keys.push(...(await scanKeys(store.redis, `${gw.keyPrefix}*`)));
  const parts: string[] = [];
  for (const key of keys) {
    const type = await store.redis.type(key);
    if (type === 'hash') parts.push(JSON.stringify(await store.redis.hGetAll(key)));
    else if (type === 'list') parts.push(JSON.stringify(await store.redis.lRange(key, 0, -1)));
    else if (type === 'set') parts.push(JSON.stringify(await store.redis.sMembers(key)));
    else if (type === 'zset') parts.push(JSON.stringify(await store.redis.zRange(key, 0, -1)));
    else if (type === 'stream') parts.push(JSON.stringify(await store.redis.xRange(key, '-', '+')));
    else if (type === 'string') parts.push(String(await store.redis.get(key)));
  }
  return { keys, text: parts.join('\n') };
}

function expectAck(reply: ServerFrame, what: string): void {
  expect(reply.type, `${what}: ${JSON.stringify(reply)}`).toBe('ack');
}

describe('free text is stored redacted', () => {
  it('keeps every credential an agent or operator wrote out of Redis, and acknowledges every write', async () => {
    expectAck(await lead.request({ type: 'event', id: 'ev-1', event: { kind: 'control_signal', control_signal: { control: 'replan', reason: LEAKY, format: 'structured' } } }), 'control_signal event');
    expectAck(await lead.request({ type: 'event', id: 'ev-2', event: { kind: 'verification', result: { ok: false, type: 'test_failure', summary: LEAKY, suggestion: LEAKY } } }), 'verification event');

    const sent = await lead.request({ type: 'send', id: 'send-1', message: { to: 'mate', content: LEAKY, type: 'message', metadata: { note: LEAKY, token: 'plain-field-secret' } } });
    expectAck(sent, 'send');
    // The sender's ack shows what was stored.
    expect(JSON.stringify(sent)).not.toContain(SECRETS.github);

    const plan: Plan = { title: `Deploy with ${SECRETS.github}`, steps: [{ id: 's1', description: LEAKY, dependencies: [], status: 'pending', tools_expected: ['bash'] }] };
    const planId = `req_${randomUUID()}`;
    expectAck(await lead.request({ type: 'request', id: 'open-plan', request: { request_id: planId, type: 'plan_approval', target: { kind: 'operators' }, payload: { plan } } }), 'plan approval');
    const decided = await fetch(`${gw.httpUrl}/v1/operator/requests/${planId}/decision`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATORS[0]!.token}`, 'content-type': 'application/json' },
      // Approved (with feedback): a rejected plan would keep the lead's tool hook below gated (E_PLAN_REQUIRED).
      body: JSON.stringify({ approve: true, feedback: LEAKY }),
    });
    expect(decided.status).toBe(200);

    const shutdownId = `req_${randomUUID()}`;
    expectAck(await lead.request({ type: 'request', id: 'open-shutdown', request: { request_id: shutdownId, type: 'shutdown', target: { kind: 'agent', agent: 'mate' }, payload: { reason: LEAKY } } }), 'shutdown');
    expectAck(await mate.request({ type: 'response', id: 'answer', response: { request_id: shutdownId, type: 'shutdown_response', approve: false, feedback: LEAKY } }), 'shutdown answer');

    // A hook decided with a prompt signal, answered with details full of credentials.
    const hookId = randomUUID();
    lead.send({ type: 'hook', id: hookId, trigger: 'pre-tool-use', context: { tool: { name: 'Bash', input: { command: 'ls' } } } });
    const { decision } = await decideAsWorker(store, hookId, 'pre-tool-use', [promptSignal(hookId)]);
    await lead.next((frame) => frame.type === 'decision' && frame.id === hookId);
    const signalId = decision.signals[0]!.header.id;
    expectAck(
      await lead.request({ type: 'signal_response', id: 'sr-1', response: { signal_id: signalId, consumed_at: new Date().toISOString(), action: 'acknowledge', details: { note: LEAKY } } }),
      'signal response',
    );

    const { keys, text } = await dumpRedis();
    expect(keys.length).toBeGreaterThan(10);
    for (const [name, secret] of Object.entries(SECRETS)) expect(text.includes(secret), `${name} found in Redis`).toBe(false);
    expect(text).not.toContain('plain-field-secret');
    expect(text).toContain(REDACTED);
    // What was around the credentials is kept.
    expect(text).toContain('export GITHUB_TOKEN=');
    expect(text).toContain('https://deploy:');
  });
});
