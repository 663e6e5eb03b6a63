// Starts: a private Redis, one gateway process and one oracle-worker process, and raw WebSocket
// clients. docs/protocol.md, executed: every `json` example request of the page is sent as the
// agent and in the state it needs, and the gateway's answer must be the one the page shows.
//
// How the page pairs a request with its reply needs no markers: it is the protocol's own rule
// (§2) — a reply carries the id of the request it answers. A reply example whose `id` equals a
// request example's `id` is that request's documented reply. A request without such a reply example
// must get the reply §2 and the `ack` table promise for its type (`welcome`, `decision`, an `ack`
// with a request state, with the stored message, or without result). Push examples (`request_update`,
// `inbox`, `signal` — an aid an operator sends through the operator API —, `goaway`) must match one
// push the agents received while the requests ran.
//
// Values that are necessarily different on every run (session, signal and message ids, `seq`,
// timestamps, the gateway id, the config version) are compared by type; the first time a doc value
// is seen that way it is bound to the real one, and every later occurrence of it — in a reply or in
// a request the test sends — stands for that real value (so `signal_response` answers the real
// signal the decision example produced, and `inbox_ack` acknowledges the real message).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClientFrame, parseServerFrame, PROTOCOL_VERSION } from '@ahp/protocol';
import WebSocket from 'ws';
import { allWorkersServe, publishThroughStore } from './config-support.js';
import { eventually, startSystem, type System } from './harness.js';
import { operatorApi, operatorCall, writeOperatorTokens, type OperatorTokens } from './team-support.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface Example {
  line: number;
  frame: JsonObject;
}

const protocolMd = readFileSync(fileURLToPath(new URL('../../docs/protocol.md', import.meta.url)), 'utf8');

/** Every ```json block of the page that is a frame, split into client frames and server frames. */
function docExamples(markdown: string): { requests: Example[]; replies: Example[]; pushes: Example[]; notFrames: number[] } {
  const notFrames: number[] = [];
  const requests: Example[] = [];
  const replies: Example[] = [];
  const pushes: Example[] = [];
  for (const match of markdown.matchAll(/^```json[ \t]*\r?\n([\s\S]*?)^```[ \t]*$/gm)) {
    const body = match[1] ?? '';
    const line = markdown.slice(0, match.index).split('\n').length;
    const frame = JSON.parse(body) as JsonObject;
    if (parseClientFrame(body).ok) requests.push({ line, frame });
    else if (parseServerFrame(body).ok) ('seq' in frame || frame['type'] === 'goaway' ? pushes : replies).push({ line, frame });
    else notFrames.push(line);
  }
  return { requests, replies, pushes, notFrames };
}

/** Identities minted on every run; compared by type and bound (see the header). */
const MINTED_KEYS = new Set(['session_id', 'gateway_id']);
/** `id` under these keys is minted by the gateway or a worker (a signal's, a stored message's). */
const MINTED_ID_PARENTS = new Set(['header', 'message']);
/** Clocks and counters: compared by type only (one doc timestamp may stand for several instants). */
const TIMESTAMP_KEYS = new Set(['timestamp', 'created_at', 'updated_at', 'deadline', 'decided_at', 'sent_at', 'consumed_at']);
const COUNTER_KEYS = new Set(['seq', 'config_version']);
/** Push types the gateway does not send yet; their examples are only parsed (docs.spec.ts). */
const PUSHES_NOT_SENT_YET: string[] = [];
/** The operator of the `signal` push example (`operator:<id>`): it sends the example's aid through the operator API. */
const SIGNAL_OPERATOR = 'op-maria';
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const TIMESTAMP_IN_TEXT = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g;
function withoutTimestamps(text: string): string {
  return text.replace(TIMESTAMP_IN_TEXT, '<timestamp>');
}

function kindOf(value: Json | undefined): string {
  if (value === undefined) return 'absent';
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** Doc values bound to the values of this run. */
class Bindings {
  private readonly map = new Map<string, Json>();
  bind(doc: Json, real: Json): void {
    if (typeof doc === 'string' && !this.map.has(doc)) this.map.set(doc, real);
  }
  has(doc: Json): boolean {
    return typeof doc === 'string' && this.map.has(doc);
  }
  get(doc: string): Json | undefined {
    return this.map.get(doc);
  }
  /** The doc frame with every bound value replaced by the real one. */
  apply(value: Json): Json {
    if (typeof value === 'string') return this.map.has(value) ? (this.map.get(value) ?? value) : value;
    if (Array.isArray(value)) return value.map((item) => this.apply(item));
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.apply(item)]));
    return value;
  }
  copy(): Bindings {
    const copy = new Bindings();
    for (const [doc, real] of this.map) copy.map.set(doc, real);
    return copy;
  }
}

/**
 * Where `actual` differs from the doc example `doc`: the same keys (a field the page does not show is
 * as wrong as one the gateway does not send), the same values, varying values of the same type.
 */
function differences(doc: Json, actual: Json | undefined, bindings: Bindings, path = '', parentKey = ''): string[] {
  const key = path.split('.').at(-1)?.replace(/\[\d+\]$/, '') ?? '';
  if (TIMESTAMP_KEYS.has(key) && typeof doc === 'string') {
    return typeof actual === 'string' && ISO_TIMESTAMP.test(actual) ? [] : [`${path}: doc shows a timestamp, got ${JSON.stringify(actual)}`];
  }
  if (COUNTER_KEYS.has(key)) {
    return kindOf(doc) === kindOf(actual) ? [] : [`${path}: doc shows a ${kindOf(doc)}, got ${JSON.stringify(actual)}`];
  }
  const minted = MINTED_KEYS.has(key) || (key === 'id' && MINTED_ID_PARENTS.has(parentKey));
  if (minted || bindings.has(doc)) {
    if (bindings.has(doc) && typeof doc === 'string') {
      const bound = bindings.get(doc);
      return JSON.stringify(bound) === JSON.stringify(actual) ? [] : [`${path}: doc ${JSON.stringify(doc)} stands for ${JSON.stringify(bound)} here, got ${JSON.stringify(actual)}`];
    }
    if (kindOf(doc) !== kindOf(actual)) return [`${path}: doc shows a ${kindOf(doc)}, got ${JSON.stringify(actual)}`];
    bindings.bind(doc, actual ?? null);
    return [];
  }
  if (doc !== null && typeof doc === 'object' && !Array.isArray(doc)) {
    if (actual === null || actual === undefined || typeof actual !== 'object' || Array.isArray(actual)) return [`${path}: doc shows an object, got ${JSON.stringify(actual)}`];
    const keys = new Set([...Object.keys(doc), ...Object.keys(actual)]);
    return [...keys].flatMap((k) => {
      const at = path === '' ? k : `${path}.${k}`;
      if (!(k in doc)) return [`${at}: the gateway sends it (${JSON.stringify(actual[k])}), the doc does not show it`];
      if (!(k in actual)) return [`${at}: the doc shows ${JSON.stringify(doc[k])}, the gateway does not send it`];
      return differences(doc[k] as Json, actual[k], bindings, at, key);
    });
  }
  if (Array.isArray(doc)) {
    if (!Array.isArray(actual)) return [`${path}: doc shows an array, got ${JSON.stringify(actual)}`];
    if (doc.length !== actual.length) return [`${path}: doc shows ${doc.length} elements, got ${actual.length}: ${JSON.stringify(actual)}`];
    return doc.flatMap((item, i) => differences(item, actual[i], bindings, `${path}[${i}]`, parentKey));
  }
  // Text that quotes a timestamp (a deadline in a reason) quotes one of this run.
  if (typeof doc === 'string' && typeof actual === 'string' && withoutTimestamps(doc) === withoutTimestamps(actual)) return [];
  return doc === actual ? [] : [`${path}: doc shows ${JSON.stringify(doc)}, got ${JSON.stringify(actual)}`];
}

/** A raw WebSocket client that keeps every frame it received as the JSON the gateway wrote. */
class DocClient {
  readonly frames: JsonObject[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const text = data.toString('utf8');
      const parsed = parseServerFrame(text);
      if (!parsed.ok) throw new Error(`gateway sent an invalid frame: ${parsed.error.message}`);
      this.frames.push(JSON.parse(text) as JsonObject);
    });
  }

  static async open(url: string, token: string): Promise<DocClient> {
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` }, perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new DocClient(ws);
  }

  /** Opens and completes a handshake of its own (a new session). */
  static async connect(url: string, token: string): Promise<DocClient> {
    const client = await DocClient.open(url, token);
    await client.ask({ type: 'hello', id: 'setup-hello', protocol: PROTOCOL_VERSION, client: { name: 'protocol-docs', version: '0' } });
    return client;
  }

  /** Sends a frame and waits for the reply carrying its id. */
  async ask(frame: Json): Promise<JsonObject> {
    const id = (frame as JsonObject)['id'];
    this.ws.send(JSON.stringify(frame));
    return eventually(() => this.frames.find((f) => f['id'] === id && f['type'] !== undefined && ['welcome', 'decision', 'ack', 'error'].includes(String(f['type']))), `the reply to ${String(id)}`);
  }

  pushes(type: string): JsonObject[] {
    return this.frames.filter((frame) => frame['type'] === type);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) return resolve();
      this.ws.once('close', () => resolve());
      this.ws.close(1000);
    });
  }
}

const examples = docExamples(protocolMd);
const first = (type: string, from: Example[]) => from.find((example) => example.frame['type'] === type);
const welcomeExample = first('welcome', examples.replies);
const requestExample = first('request', examples.requests);
/** The agent the page speaks as (its welcome) and the lead its requests go to. */
const welcomeAgent = (welcomeExample?.frame['agent'] ?? {}) as { id: string; name: string; team: string; role: 'teammate'; lead?: string };
// The tokens file names no lead (the gateway finds it by role), so the welcome's `lead` stays out of it.
const teammate = { id: welcomeAgent.id, name: welcomeAgent.name, team: welcomeAgent.team, role: welcomeAgent.role };
const leadId = String(((requestExample?.frame['request'] as JsonObject | undefined)?.['target'] as JsonObject | undefined)?.['agent']);

/** What §2 and the `ack` table promise when the page shows no reply of its own for a request. */
function promisedReply(request: JsonObject): JsonObject {
  switch (request['type']) {
    case 'hello':
      return { type: 'welcome' };
    case 'hook':
      return { type: 'decision' };
    case 'request':
    case 'response':
    case 'cancel':
      return { type: 'ack', result: { kind: 'request' } };
    case 'send':
      return { type: 'ack', result: { kind: 'message' } };
    default:
      return { type: 'ack' };
  }
}

/**
 * The rules behind the page's decisions: a `pre-tool-use` rule that caps a batch size (the control
 * decision) and one that hands production changes to an operator (the tool-approval block).
 */
const HOOKS_YAML = `
version: 1
hooks:
  pre-tool-use:
    oracles:
      - name: batch-size-limiter
        rules:
          - id: max-batch
            condition: 'tool.name == "db.migrate" and tool.input.batch_size > 1000'
            intensity: control
            type: permission-check
            message: Avoid running out of memory
            action: { type: set, target: batch_size, value: 1000 }
      - name: risky-commands
        use: rules
        rules:
          - id: production-infrastructure
            condition: 'tool.name == "bash" and tool.input.command matches /^kubectl\\s+rollout/'
            require_approval:
              deadline: 15m
              on_expiry: reject
              message: "{{ tool.input.command }} changes production infrastructure."
`;

/**
 * Request types in the order their state depends on each other (a signal exists before it is
 * answered, a request before its response, a message before its inbox_ack), doc order within.
 */
const ORDER = ['hello', 'hook', 'signal_response', 'event', 'request', 'response', 'cancel', 'send', 'inbox_ack'];

describe('docs/protocol.md against a running gateway', () => {
  let system: System;
  let url: string;
  let alice: DocClient;
  let lead: DocClient;
  const bindings = new Bindings();
  const problems: string[] = [];
  let covered = 0;
  const checkedReplies = new Set<number>();

  let operators: OperatorTokens;

  beforeAll(async () => {
    operators = await writeOperatorTokens([{ id: SIGNAL_OPERATOR, name: 'Maria', role: 'approver' }]);
    system = await startSystem({
      name: 'protocol-docs',
      agents: [teammate, { id: leadId, name: 'Lead', team: teammate.team, role: 'lead' }],
      gatewayEnv: { AHP_OPERATOR_TOKENS_FILE: operators.file },
    });
    url = system.stack.gatewayUrls()[0]!;
    await allWorkersServe(system, await publishThroughStore(system, HOOKS_YAML));
  });

  afterAll(async () => {
    await system?.stop();
    await operators?.remove();
  });

  /** Compares a reply with the doc example (or the promised reply) and records what differs. */
  function check(request: Example, reply: JsonObject, bound = bindings): void {
    const documented = examples.replies.find((example) => example.frame['id'] === request.frame['id']);
    const where = `line ${request.line} (${String(request.frame['type'])} ${String(request.frame['id'])})`;
    if (documented) {
      checkedReplies.add(documented.line);
      for (const problem of differences(documented.frame, reply, bound)) problems.push(`${where} → reply example at line ${documented.line}: ${problem}`);
    } else {
      const promised = promisedReply(request.frame);
      const result = reply['result'] as JsonObject | undefined;
      const got = { type: reply['type'], ...(result === undefined ? {} : { result: { kind: result['kind'] } }) };
      if (JSON.stringify(got) !== JSON.stringify(promised)) problems.push(`${where}: expected ${JSON.stringify(promised)}, got ${JSON.stringify(reply)}`);
    }
    covered++;
  }

  /** Sends a doc request (bound values replaced) and checks the reply. */
  async function run(client: DocClient, request: Example, extra = bindings): Promise<JsonObject> {
    const reply = await client.ask(extra.apply(request.frame));
    check(request, reply, extra);
    return reply;
  }

  it('every example request produces the documented reply', async () => {
    expect(examples.notFrames, 'json blocks that are no frame (libs/protocol/src/docs.spec.ts says why)').toEqual([]);
    const byType = (type: string) => examples.requests.filter((example) => example.frame['type'] === type);
    const unknown = examples.requests.filter((example) => !ORDER.includes(String(example.frame['type'])));
    expect(unknown.map((example) => `line ${example.line}: no state known for a ${String(example.frame['type'])} request`)).toEqual([]);

    for (const type of ORDER) {
      for (const example of byType(type)) {
        switch (type) {
          case 'hello': {
            // A hello that resumes needs a session to resume: open one, leave it, resume it.
            const earlier = await DocClient.connect(url, system.token(teammate.id));
            const session = earlier.frames.find((frame) => frame['type'] === 'welcome')?.['session_id'] ?? null;
            await earlier.close();
            if (typeof example.frame['session_id'] === 'string') bindings.bind(example.frame['session_id'], session);
            alice = await DocClient.open(url, system.token(teammate.id));
            await run(alice, example);
            lead = await DocClient.connect(url, system.token(leadId));
            break;
          }
          case 'response':
            await run(lead, example);
            break;
          case 'cancel': {
            // The page's request was answered by now; withdraw a pending copy of it under a fresh id.
            const fresh = `req_cancel_${crypto.randomUUID()}`;
            const scoped = bindings.copy();
            scoped.bind(String(example.frame['request_id']), fresh);
            const copy = scoped.apply(requestExample!.frame) as JsonObject;
            await alice.ask({ ...copy, id: 'setup-cancel', request: { ...(copy['request'] as JsonObject), request_id: fresh } });
            await run(alice, example, scoped);
            break;
          }
          case 'inbox_ack': {
            // The inbox example is what the page's agent must acknowledge: have its lead send it.
            const inbox = first('inbox', examples.pushes)!.frame['message'] as JsonObject;
            expect([inbox['from'], inbox['to']], 'the inbox example is a message from the lead to the page\'s agent').toEqual([leadId, teammate.id]);
            await lead.ask({ type: 'send', id: 'setup-inbox', message: { to: inbox['to'] ?? null, content: inbox['content'] ?? null, type: inbox['type'] ?? null, metadata: inbox['metadata'] ?? {} } });
            await checkPushes('inbox');
            await run(alice, example);
            break;
          }
          default:
            await run(alice, example);
        }
      }
    }
    for (const example of examples.replies.filter((reply) => reply.frame['type'] === 'error' && !examples.requests.some((request) => request.frame['id'] === reply.frame['id']))) {
      const text = unreadableRequestFor(example.frame);
      if (text === undefined) continue;
      alice.ws.send(text);
      const reply = await eventually(() => alice.frames.find((frame) => frame['type'] === 'error' && frame['id'] === example.frame['id'] && !answered.has(frame)), `the error for line ${example.line}`);
      answered.add(reply);
      checkedReplies.add(example.line);
      for (const problem of differences(example.frame, reply, bindings)) problems.push(`error example at line ${example.line}: ${problem}`);
    }
    expect(problems).toEqual([]);
    expect(covered).toBe(examples.requests.length);
    const unchecked = examples.replies.filter((reply) => !checkedReplies.has(reply.line));
    expect(unchecked.map((reply) => `reply example at line ${reply.line} answers no example request: give the request it answers the same id`)).toEqual([]);
  });
  const answered = new Set<JsonObject>();

  /**
   * The request an error example without a request example answers, when the page says enough to
   * build it: unreadable JSON for `E_BAD_FRAME`, or — for `E_INVALID_FRAME` — the page's first
   * example of `details.type` with the value at the first issue's path replaced by one no schema takes.
   */
  function unreadableRequestFor(error: JsonObject): string | undefined {
    const body = error['error'] as JsonObject;
    const details = (body['details'] ?? {}) as JsonObject;
    if (body['code'] === 'E_BAD_FRAME') return '{"type": "hook", "id": ';
    if (body['code'] !== 'E_INVALID_FRAME') return undefined;
    const model = first(String(details['type']), examples.requests);
    const path = String(((details['issues'] as JsonObject[] | undefined)?.[0] ?? {})['path'] ?? '');
    if (model === undefined || path === '') return undefined;
    const frame = structuredClone(model.frame);
    const keys = path.split('.');
    let at: JsonObject = frame;
    for (const key of keys.slice(0, -1)) at = at[key] as JsonObject;
    at[keys.at(-1)!] = 'not-a-value-of-the-schema';
    frame['id'] = error['id'] ?? null;
    return JSON.stringify(bindings.apply(frame));
  }

  /**
   * Each push example of `type` must match one push the page's agent received. A push may still be
   * on its way (it crosses Redis), so this waits for a match and reports the closest push after 5 s.
   */
  async function checkPushes(type: string): Promise<void> {
    for (const example of examples.pushes.filter((push) => push.frame['type'] === type)) {
      const closest = () =>
        alice
          .pushes(type)
          .map((push) => ({ push, problems: differences(example.frame, push, bindings.copy()) }))
          .sort((a, b) => a.problems.length - b.problems.length)[0];
      const matched = await eventually(() => (closest()?.problems.length === 0 ? true : undefined), `a ${type} push like line ${example.line}`, 5_000).catch(() => false);
      const best = closest();
      if (best === undefined) problems.push(`push example at line ${example.line}: no ${type} push was received`);
      else if (!matched) problems.push(...best.problems.map((problem) => `push example at line ${example.line}: ${problem}`));
      else differences(example.frame, best.push, bindings); // keep its bindings (e.g. the message id)
    }
  }

  it('the push examples are pushes the gateway sent', async () => {
    problems.length = 0;
    const unchecked = examples.pushes.filter((push) => !['request_update', 'inbox', 'signal', 'goaway', ...PUSHES_NOT_SENT_YET].includes(String(push.frame['type'])));
    expect(unchecked.map((push) => `line ${push.line}: no state known for a ${String(push.frame['type'])} push`)).toEqual([]);
    await checkPushes('request_update');
    // signal: the example is an aid an operator sent the page's agent (docs/operator-api.md).
    for (const example of examples.pushes.filter((push) => push.frame['type'] === 'signal')) {
      const signal = example.frame['signal'] as JsonObject;
      const header = signal['header'] as JsonObject;
      const payload = signal['payload'] as JsonObject;
      expect(header['source'], 'the signal push example is one an operator sent').toBe(`operator:${SIGNAL_OPERATOR}`);
      const body = { intensity: header['intensity'] ?? null, type: header['type'] ?? null, context: signal['context'] ?? {}, reason: payload['context'] ?? null, suggestions: payload['suggestions'] ?? [] };
      const sent = await operatorCall(operatorApi(system.stack.gateways[0]!), operators.token(SIGNAL_OPERATOR), 'POST', `/agents/${teammate.id}/signals`, body);
      expect(sent.status, JSON.stringify(sent.json)).toBe(201);
    }
    await checkPushes('signal');
    // goaway: a gateway that shuts down says so to every connection.
    const gateway = system.stack.gateways[0]!;
    await Promise.all([gateway.stop(), eventually(() => (alice.pushes('goaway').length > 0 ? true : undefined), 'a goaway')]);
    for (const example of examples.pushes.filter((push) => push.frame['type'] === 'goaway')) {
      const goaway = alice.pushes('goaway')[0]!;
      // The reason names the gateway and the wait is the deployment's: both are compared by type.
      const scratch = bindings.copy();
      scratch.bind(String(example.frame['reason']), goaway['reason'] ?? null);
      scratch.bind(String(example.frame['reconnect_after_ms']), goaway['reconnect_after_ms'] ?? null);
      for (const problem of differences({ ...example.frame, reconnect_after_ms: kindOf(goaway['reconnect_after_ms']) === 'number' ? (goaway['reconnect_after_ms'] ?? 0) : -1 }, goaway, scratch)) {
        problems.push(`push example at line ${example.line}: ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
