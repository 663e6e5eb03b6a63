/**
 * The client against real sockets: a scripted gateway (a `ws` server on port 0 speaking the
 * protocol) plays the other side. Backoff values are tiny so reconnects happen at once; nothing
 * here asserts how long something took.
 */
import { CLOSE_CODES, PROTOCOL_VERSION, makeError } from '@ahp/protocol/wire';
import type { HookDecision, HookFrame, Signal } from '@ahp/protocol/wire';
import { WebSocket as WsWebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { LIVENESS_PROBE_MESSAGE_ID } from '../src/connection.js';
import { AhpClientError, SDK_NAME, SDK_VERSION, connect } from '../src/index.js';
import type { AhpClient, ClientOptions, GoawayInfo, HookResult, Logger, SessionInfo, StateChange } from '../src/index.js';
import { decisionFor, failClosedFor, signalOf } from './support/fixtures.js';
import { ScriptedGateway, TEST_AGENT, TEST_TOKEN, eventually } from './support/scripted-gateway.js';
import type { ScriptedGatewayOptions } from './support/scripted-gateway.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const gateways: ScriptedGateway[] = [];
const clients: AhpClient[] = [];

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  await Promise.allSettled(gateways.splice(0).map((gateway) => gateway.stop()));
});

async function gateway(options: ScriptedGatewayOptions = {}): Promise<ScriptedGateway> {
  const started = await ScriptedGateway.start(options);
  gateways.push(started);
  return started;
}

function options(urls: string[], extra: Partial<ClientOptions> = {}): ClientOptions {
  return {
    url: urls,
    token: TEST_TOKEN,
    reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
    connectTimeoutMs: 4_000,
    ...extra,
  };
}

async function open(urls: string[], extra: Partial<ClientOptions> = {}): Promise<AhpClient> {
  const client = await connect(options(urls, extra));
  clients.push(client);
  return client;
}

function recordingLogger() {
  const lines: { level: string; message: string; fields: unknown }[] = [];
  const record =
    (level: string) =>
    (fields: unknown, message: string): void => {
      lines.push({ level, message, fields });
    };
  const logger: Logger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
  return { logger, lines };
}

/** Script: answer hooks with `decide`, acknowledge signal responses. */
function answer(target: ScriptedGateway, decide: (frame: HookFrame) => HookDecision): void {
  target.script = (frame, peer) => {
    if (frame.type === 'hook') peer.send({ type: 'decision', id: frame.id, decision: decide(frame) });
    else if (frame.type === 'signal_response') peer.send({ type: 'ack', id: frame.id });
  };
}

async function rejection(promise: Promise<unknown>): Promise<AhpClientError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(AhpClientError);
  return error as AhpClientError;
}

/** Gives a wrongly scheduled retry the chance to happen before the test checks there was none. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 100));
}

describe('connect', () => {
  it('authenticates with the Authorization header and resolves after the welcome', async () => {
    const gw = await gateway();
    const client = await open([gw.url]);

    expect(gw.peers[0]!.authorization).toBe(`Bearer ${TEST_TOKEN}`);
    expect(gw.peers[0]!.queryToken).toBeNull();
    expect(gw.hellos).toHaveLength(1);
    expect(gw.hellos[0]).toMatchObject({ protocol: PROTOCOL_VERSION, client: { name: SDK_NAME, version: SDK_VERSION } });
    expect(gw.hellos[0]!.session_id).toBeUndefined();
    expect(client.state).toBe('open');
    expect(client.sessionId).toBe(gw.peers[0]!.sessionId);
    expect(client.agent).toEqual(TEST_AGENT);
    expect(client.session).toMatchObject({ resumed: false, gatewayId: gw.gatewayId });
    expect(gw.invalid).toEqual([]);
  });

  it('sends the token as ?token= through a WHATWG-style WebSocket, which cannot set headers', async () => {
    const gw = await gateway();
    const client = await open([gw.url], { WebSocket: WsWebSocket, client: { name: 'browser-agent', version: '2.0.0' } });

    expect(gw.peers[0]!.queryToken).toBe(TEST_TOKEN);
    expect(gw.peers[0]!.authorization).toBeUndefined();
    expect(gw.hellos[0]!.client).toEqual({ name: 'browser-agent', version: '2.0.0' });
    expect(client.state).toBe('open');
  });

  it('rejects with E_UNAUTHORIZED on HTTP 401 and does not retry', async () => {
    const gw = await gateway();
    const error = await rejection(connect(options([gw.url], { token: 'wrong-token', reconnect: { initialDelayMs: 1, maxDelayMs: 1 } })));

    expect(error.code).toBe('E_UNAUTHORIZED');
    expect(error.retryable).toBe(false);
    expect(error.details).toMatchObject({ http_status: 401 });
    await settle();
    expect(gw.upgrades).toBe(1);
  });

  it('rejects with the typed error when the gateway refuses hello for good', async () => {
    const gw = await gateway({
      onHello: (hello, peer) => {
        peer.send({ type: 'error', id: hello.id, error: makeError('E_UNSUPPORTED_VERSION', 'protocol 1 is retired', { supported: [2] }) });
        return true;
      },
    });
    const error = await rejection(connect(options([gw.url])));

    expect(error.code).toBe('E_UNSUPPORTED_VERSION');
    expect(error.details).toEqual({ supported: [2] });
    await settle();
    expect(gw.upgrades).toBe(1);
  });

  it('keeps retrying while no gateway answers and rejects with E_TIMEOUT at connectTimeoutMs', async () => {
    const gone = await ScriptedGateway.start();
    const url = gone.url;
    await gone.stop();

    const error = await rejection(connect(options([url], { connectTimeoutMs: 300 })));
    expect(error.code).toBe('E_TIMEOUT');
    expect(error.details).toMatchObject({ phase: 'connect', last_close_code: 1006 });
  });

  it('rejects with E_CLOSED when the abort signal fires first', async () => {
    const gone = await ScriptedGateway.start();
    const url = gone.url;
    await gone.stop();

    const controller = new AbortController();
    const pending = connect(options([url], { signal: controller.signal }));
    setTimeout(() => controller.abort(), 20);
    expect((await rejection(pending)).code).toBe('E_CLOSED');
  });

  it('refuses invalid options with a TypeError that names the option', async () => {
    await expect(connect({ url: 'http://example.com/v1/agents', token: 't' })).rejects.toThrow(/ws: or wss:/);
    await expect(connect({ url: [], token: 't' })).rejects.toThrow(/url/);
    await expect(connect({ url: 'ws://example.com/v1/agents', token: '' })).rejects.toThrow(/token/);
    await expect(connect({ url: 'ws://example.com/v1/agents', token: 't', hookDeadlineMs: -1 })).rejects.toThrow(/hookDeadlineMs/);
  });
});

describe('session resume', () => {
  it('reconnects after the socket drops and resumes: the next hello carries the session_id and last_seq', async () => {
    const gw = await gateway();
    const client = await open([gw.url]);
    const first = client.sessionId!;
    const states: string[] = [];
    const sessions: SessionInfo[] = [];
    const received: Signal[] = [];
    client.on('state', (change) => {
      states.push(change.state);
    });
    client.on('session', (session) => {
      sessions.push(session);
    });
    client.onSignal((signal) => {
      received.push(signal);
    });

    const pushed = signalOf('aid');
    gw.current!.send({ type: 'signal', seq: 1, signal: pushed });
    await eventually(() => received.length === 1, 'the first push');
    gw.current!.terminate();

    await eventually(() => gw.hellos.length === 2 && client.state === 'open', 'the resumed connection');
    expect(gw.hellos[1]).toMatchObject({ session_id: first, last_seq: 1 });
    expect(sessions.at(-1)).toMatchObject({ sessionId: first, resumed: true });
    expect(client.sessionId).toBe(first);
    expect(states).toEqual(['connecting', 'open']);

    // A push the gateway re-delivers after the resume is not handed out twice.
    const next = signalOf('aid');
    gw.current!.send({ type: 'signal', seq: 1, signal: pushed });
    gw.current!.send({ type: 'signal', seq: 2, signal: next });
    await eventually(() => received.length === 2, 'the second push');
    expect(received.map((signal) => signal.header.id)).toEqual([pushed.header.id, next.header.id]);
    expect(gw.invalid).toEqual([]);
  });

  it('presumes a silent connection dead and reconnects (liveness)', async () => {
    const gw = await gateway({ heartbeatMs: 1_000 });
    const { logger, lines } = recordingLogger();
    const client = await open([gw.url], { livenessFactor: 0.3, logger });
    const first = client.sessionId;

    await eventually(() => gw.hellos.length >= 2, 'a reconnect after silence');
    expect(gw.hellos[1]!.session_id).toBe(first);
    expect(lines.some((line) => line.level === 'warn' && line.message.includes('no traffic'))).toBe(true);
  });

  it('keeps a quiet WHATWG connection alive with acknowledged probes, since it cannot see pings', { timeout: 10_000 }, async () => {
    const gw = await gateway({ heartbeatMs: 1_000 });
    gw.script = (frame, peer) => {
      if (frame.type === 'inbox_ack') peer.send({ type: 'ack', id: frame.id });
    };
    await open([gw.url], { WebSocket: WsWebSocket });

    // Two probes means the connection outlived 2 × heartbeat thanks to the first one's ack.
    await eventually(() => gw.framesOf('inbox_ack').length >= 2, 'two probes', 8_000);
    expect(gw.framesOf('inbox_ack')[0]!.message_ids).toEqual([LIVENESS_PROBE_MESSAGE_ID]);
    expect(gw.hellos).toHaveLength(1);
  });
});

describe('hook', () => {
  const cases: { name: string; signals: () => Signal[]; check: (result: HookResult) => void }[] = [
    {
      name: 'block: not allowed, with the reason and resolution path at hand',
      signals: () => [signalOf('block')],
      check: (result) => {
        expect(result.allowed).toBe(false);
        expect(result.intensity).toBe('block');
        expect(result.block?.reason).toBe('rm -rf outside the workspace');
        expect(result.block?.resolvable).toBe(true);
        expect(result.block?.resolutionPath).toEqual(['limit the path to ./build', 'ask an operator']);
        expect(result.block?.source).toBe('block-oracle');
        expect(result.block?.signal?.header.intensity).toBe('block');
      },
    },
    {
      name: 'control: allowed, with the modifications to apply',
      signals: () => [signalOf('control')],
      check: (result) => {
        expect(result.allowed).toBe(true);
        expect(result.intensity).toBe('control');
        expect(result.block).toBeUndefined();
        expect(result.modifications).toEqual([{ target: 'timeout_s', original: 600, updated: 60, reason: 'cap long commands' }]);
      },
    },
    {
      name: 'prompt: allowed, with the warnings',
      signals: () => [signalOf('prompt')],
      check: (result) => {
        expect(result.allowed).toBe(true);
        expect(result.intensity).toBe('prompt');
        expect(result.warnings).toEqual(['tests were not run']);
      },
    },
    {
      name: 'aid: allowed, with the suggestion signal',
      signals: () => [signalOf('aid')],
      check: (result) => {
        expect(result.allowed).toBe(true);
        expect(result.intensity).toBe('aid');
        expect(result.signals).toHaveLength(1);
        expect(result.modifications).toEqual([]);
      },
    },
    {
      name: 'no intervention: allowed, intensity null',
      signals: () => [],
      check: (result) => {
        expect(result.allowed).toBe(true);
        expect(result.intensity).toBeNull();
        expect(result.signals).toEqual([]);
        expect(result.decidedBy).toBe('oracles');
      },
    },
    {
      name: 'block and prompt together: the block wins, the warning stays visible',
      signals: () => [signalOf('prompt'), signalOf('block')],
      check: (result) => {
        expect(result.allowed).toBe(false);
        expect(result.intensity).toBe('block');
        expect(result.block?.reason).toBe('rm -rf outside the workspace');
        expect(result.warnings).toEqual(['tests were not run']);
      },
    },
  ];

  it.each(cases)('resolves with a typed result — $name', async ({ signals, check }) => {
    const gw = await gateway();
    answer(gw, (frame) => decisionFor(frame.id, frame.trigger, signals()));
    const client = await open([gw.url]);

    const result = await client.hook('pre-tool-use', { tool: { name: 'bash', input: { command: 'rm -rf /tmp/x' } } });

    const sent = gw.framesOf('hook')[0]!;
    expect(sent).toMatchObject({ trigger: 'pre-tool-use', context: { tool: { name: 'bash', input: { command: 'rm -rf /tmp/x' } } } });
    expect(sent.id).toMatch(UUID);
    expect(result.hookId).toBe(sent.id);
    expect(result.trigger).toBe('pre-tool-use');
    expect(result.decision.hook_id).toBe(sent.id);
    check(result);
    expect(gw.invalid).toEqual([]);
  });

  it('reports a fail-closed failure-policy decision as a block from "failure_policy"', async () => {
    const gw = await gateway();
    answer(gw, (frame) => failClosedFor(frame.id, frame.trigger));
    const client = await open([gw.url]);

    const result = await client.hook('pre-issue-close', {});
    expect(result.allowed).toBe(false);
    expect(result.decidedBy).toBe('failure_policy');
    expect(result.error).toEqual({ code: 'E_TIMEOUT', message: 'oracles did not answer within 5000 ms' });
    expect(result.block).toMatchObject({ source: 'failure_policy', reason: 'oracles did not answer within 5000 ms', resolvable: false });
    expect(result.block?.signal).toBeUndefined();
  });

  it('passes hookId, evaluation deadline and session id through to the frame', async () => {
    const gw = await gateway();
    answer(gw, (frame) => decisionFor(frame.id, frame.trigger, []));
    const client = await open([gw.url]);
    const hookId = '0d9a8f6e-2b3c-4d5e-8f90-1a2b3c4d5e6f';

    await client.hook('post-tool-use', { ok: true }, { hookId, evaluationDeadlineMs: 2_000, sessionId: 'run-7' });
    expect(gw.framesOf('hook')[0]).toEqual({
      type: 'hook',
      id: hookId,
      trigger: 'post-tool-use',
      context: { ok: true },
      session_id: 'run-7',
      deadline_ms: 2_000,
    });
  });

  it('rejects with the gateway error code, keeping retryable and the retry hint', async () => {
    const gw = await gateway();
    gw.script = (frame, peer) => {
      if (frame.type === 'hook') {
        peer.send({ type: 'error', id: frame.id, error: makeError('E_PLAN_PENDING', 'plan approval pending', { request_id: 'plan-1' }) });
      }
    };
    const client = await open([gw.url]);

    const error = await rejection(client.hook('pre-tool-use', { tool: { name: 'bash', input: {} } }));
    expect(error.code).toBe('E_PLAN_PENDING');
    expect(error.retryable).toBe(true);
    expect(error.details).toEqual({ request_id: 'plan-1' });
  });

  it('rejects with E_TIMEOUT at its own deadline when no decision comes', async () => {
    const gw = await gateway();
    const client = await open([gw.url]);

    const error = await rejection(client.hook('pre-tool-use', {}, { deadlineMs: 50 }));
    expect(error.code).toBe('E_TIMEOUT');
    expect(error.retryable).toBe(true);
    expect(gw.framesOf('hook')).toHaveLength(1);
  });

  it('rejects an invalid hook with E_INVALID_FRAME before anything is sent', async () => {
    const gw = await gateway();
    const client = await open([gw.url]);

    const error = await rejection(client.hook('pre-tool-use', { bad: Number.NaN }));
    expect(error.code).toBe('E_INVALID_FRAME');
    expect((await rejection(client.hook('pre-tool-use', {}, { hookId: 'not-a-uuid' }))).code).toBe('E_INVALID_FRAME');
    await settle();
    expect(gw.framesOf('hook')).toEqual([]);
  });

  it('after a dropped connection, re-sends the pending hook with the same id to the next URL and resolves once', async () => {
    const a = await gateway();
    const b = await gateway();
    a.script = (frame, peer) => {
      if (frame.type === 'hook') peer.terminate();
    };
    b.script = (frame, peer) => {
      if (frame.type !== 'hook') return;
      // The gateway answers twice (e.g. the first evaluation and a replay); only the first may count.
      peer.send({ type: 'decision', id: frame.id, decision: decisionFor(frame.id, frame.trigger, [signalOf('prompt')], 1) });
      peer.send({ type: 'decision', id: frame.id, decision: decisionFor(frame.id, frame.trigger, [], 2) });
    };
    const { logger, lines } = recordingLogger();
    const client = await open([a.url, b.url], { logger });
    const firstSession = client.sessionId;
    let resolutions = 0;

    const result = await client.hook('pre-tool-use', { tool: { name: 'bash', input: {} } }).then((value) => {
      resolutions += 1;
      return value;
    });

    const [toA] = a.framesOf('hook');
    const [toB] = b.framesOf('hook');
    expect(toB).toEqual(toA);
    expect(b.framesOf('hook')).toHaveLength(1);
    expect(b.hellos[0]!.session_id).toBe(firstSession);
    expect(result.hookId).toBe(toA!.id);
    expect(result.decision.config_version).toBe(1);
    expect(result.warnings).toEqual(['tests were not run']);
    await eventually(() => lines.some((line) => line.message.startsWith('reply for no pending request')), 'the ignored duplicate');
    expect(resolutions).toBe(1);
    expect(client.session?.gatewayId).toBe(b.gatewayId);
    expect([...a.invalid, ...b.invalid]).toEqual([]);
  });

  it('moves a hook refused with E_SHUTTING_DOWN to the next gateway instead of failing it', async () => {
    const a = await gateway();
    const b = await gateway();
    a.script = (frame, peer) => {
      if (frame.type === 'hook') peer.send({ type: 'error', id: frame.id, error: makeError('E_SHUTTING_DOWN', 'draining') });
    };
    answer(b, (frame) => decisionFor(frame.id, frame.trigger, []));
    const client = await open([a.url, b.url]);

    const result = await client.hook('pre-tool-use', {});
    expect(result.allowed).toBe(true);
    expect(b.framesOf('hook')[0]!.id).toBe(a.framesOf('hook')[0]!.id);
    expect(await a.peers[0]!.closed).toBe(CLOSE_CODES.GOING_AWAY);
  });
});

describe('goaway', () => {
  it('leaves the gateway by itself after the announced wait and resumes on the next URL', async () => {
    const a = await gateway();
    const b = await gateway();
    answer(b, (frame) => decisionFor(frame.id, frame.trigger, []));
    const client = await open([a.url, b.url]);
    const firstSession = client.sessionId;
    const goaways: GoawayInfo[] = [];
    client.on('goaway', (info) => {
      goaways.push(info);
    });

    a.current!.send({ type: 'goaway', reason: 'deploying', reconnect_after_ms: 50 });
    await eventually(() => goaways.length === 1, 'the goaway event');
    // Asked while draining: must not go to the gateway that is leaving.
    const result = await client.hook('pre-tool-use', {});

    expect(goaways[0]).toMatchObject({ reason: 'deploying', reconnectAfterMs: 50 });
    expect(result.allowed).toBe(true);
    expect(a.framesOf('hook')).toEqual([]);
    expect(b.hellos[0]!.session_id).toBe(firstSession);
    expect(await a.peers[0]!.closed).toBe(CLOSE_CODES.GOING_AWAY);
    expect(client.session?.gatewayId).toBe(b.gatewayId);
  });

  it('reconnects when the gateway closes right after its goaway', async () => {
    const a = await gateway();
    const b = await gateway();
    const client = await open([a.url, b.url]);

    a.current!.send({ type: 'goaway', reason: 'shutdown', reconnect_after_ms: 0 });
    a.current!.close(CLOSE_CODES.GOING_AWAY, 'shutdown');

    await eventually(() => client.state === 'open' && client.session?.gatewayId === b.gatewayId, 'the second gateway');
    expect(b.hellos[0]!.session_id).toBe(a.peers[0]!.sessionId);
  });
});

describe('input budget close (4006)', () => {
  it("stays away at least the gateway's retry_after_ms (jittered) before reconnecting, then resumes", async () => {
    const gw = await gateway();
    const { logger, lines } = recordingLogger();
    const client = await open([gw.url], { logger });
    const first = gw.current!;

    first.send({ type: 'error', id: null, error: makeError('E_RATE_LIMITED', 'over the input budget', { overrun: 'frames' }, { retryAfterMs: 80 }) });
    first.close(CLOSE_CODES.CONNECTION_RATE_LIMITED, 'input budget exceeded (frames)');

    await eventually(() => gw.hellos.length === 2 && client.state === 'open', 'the reconnect');
    const backoff = lines.find((line) => line.message === 'closed for going over the input budget; backing off');
    expect(backoff?.level).toBe('warn');
    const away = (backoff!.fields as { reconnectInMs: number; code: number }).reconnectInMs;
    expect((backoff!.fields as { code: number }).code).toBe(CLOSE_CODES.CONNECTION_RATE_LIMITED);
    // goawayDelay: at least retry_after_ms, at most twice it (the jitter).
    expect(away).toBeGreaterThanOrEqual(80);
    expect(away).toBeLessThan(160 + 20);
    expect(gw.hellos[1]!.session_id).toBe(client.sessionId);
  });

  it('falls back to 5 s when the error frame gave no retry_after_ms', async () => {
    const gw = await gateway();
    const { logger, lines } = recordingLogger();
    const client = await open([gw.url], { logger });
    gw.current!.send({ type: 'error', id: null, error: makeError('E_RATE_LIMITED', 'over the input budget', undefined) });
    gw.current!.close(CLOSE_CODES.CONNECTION_RATE_LIMITED, 'input budget exceeded (bytes)');
    const backoff = await eventually(() => lines.find((line) => line.message === 'closed for going over the input budget; backing off'), 'the backoff line');
    expect((backoff.fields as { reconnectInMs: number }).reconnectInMs).toBeGreaterThanOrEqual(5_000);
    expect(client.state).toBe('connecting');
  });
});

describe('do-not-reconnect close codes', () => {
  it('stops with a typed error, rejects the pending hook and does not reconnect', async () => {
    const gw = await gateway();
    gw.script = (frame, peer) => {
      if (frame.type === 'hook') peer.close(CLOSE_CODES.SESSION_ENDED, 'shutdown approved');
    };
    const client = await open([gw.url]);
    const states: StateChange[] = [];
    client.on('state', (change) => {
      states.push(change);
    });

    const error = await rejection(client.hook('pre-tool-use', {}));
    expect(error.code).toBe('E_DISCONNECTED');
    expect(error.closeCode).toBe(CLOSE_CODES.SESSION_ENDED);
    expect(error.details).toMatchObject({ close_name: 'SESSION_ENDED', reason: 'shutdown approved' });
    expect(client.state).toBe('closed');
    expect(states.at(-1)).toMatchObject({ state: 'closed', previous: 'open', error: { code: 'E_DISCONNECTED' } });
    expect((await rejection(client.hook('pre-tool-use', {}))).code).toBe('E_DISCONNECTED');
    await settle();
    expect(gw.upgrades).toBe(1);
  });

  it('reports a token revoked mid-connection (4401) as E_UNAUTHORIZED', async () => {
    const gw = await gateway();
    const client = await open([gw.url]);
    const closed = new Promise<StateChange>((resolve) => {
      client.on('state', (change) => {
        if (change.state === 'closed') resolve(change);
      });
    });

    gw.current!.close(CLOSE_CODES.UNAUTHORIZED, 'token revoked');
    const change = await closed;
    expect(change.error).toMatchObject({ code: 'E_UNAUTHORIZED', closeCode: 4401 });
    await settle();
    expect(gw.upgrades).toBe(1);
  });
});

describe('respond', () => {
  it('rejects an action that does not fit the signal with E_INVALID_ACTION, without sending', async () => {
    const gw = await gateway();
    answer(gw, (frame) => decisionFor(frame.id, frame.trigger, [signalOf('block')]));
    const client = await open([gw.url]);
    const result = await client.hook('pre-tool-use', {});
    const blocking = result.signals[0]!;

    const byObject = await rejection(client.respond(blocking, 'dismiss'));
    expect(byObject.code).toBe('E_INVALID_ACTION');
    expect(byObject.details).toMatchObject({ intensity: 'block', action: 'dismiss', allowed: ['retry_after_fix', 'proceed_with_risk', 'abort'] });
    // Known by id too: the signal came in a decision of this client.
    expect((await rejection(client.respond(blocking.header.id, 'acknowledge'))).code).toBe('E_INVALID_ACTION');
    await settle();
    expect(gw.framesOf('signal_response')).toEqual([]);
  });

  it('sends a valid response and resolves on the ack', async () => {
    const gw = await gateway();
    answer(gw, (frame) => decisionFor(frame.id, frame.trigger, [signalOf('block')]));
    const client = await open([gw.url]);
    const result = await client.hook('pre-tool-use', {});
    const consumedAt = new Date('2026-02-09T11:00:00Z');

    await client.respond(result.block!.signal!, 'retry_after_fix', { note: 'narrowed the path' }, { consumedAt });
    expect(gw.framesOf('signal_response')[0]!.response).toEqual({
      signal_id: result.signals[0]!.header.id,
      consumed_at: consumedAt.toISOString(),
      action: 'retry_after_fix',
      details: { note: 'narrowed the path' },
    });
  });

  it('leaves an unknown signal id to the gateway and reports its verdict', async () => {
    const gw = await gateway();
    gw.script = (frame, peer) => {
      if (frame.type === 'signal_response') peer.send({ type: 'error', id: frame.id, error: makeError('E_NOT_FOUND', 'no such signal') });
    };
    const client = await open([gw.url]);

    const error = await rejection(client.respond('5e0f9a1b-3c2d-4e5f-8a9b-0c1d2e3f4a5b', 'acknowledge'));
    expect(error.code).toBe('E_NOT_FOUND');
    expect(gw.framesOf('signal_response')).toHaveLength(1);
  });

  it('delivers pushed signals, also those that arrive with the welcome before anyone subscribed', async () => {
    const early = signalOf('prompt');
    const gw = await gateway({ afterWelcome: (peer) => peer.send({ type: 'signal', seq: 1, signal: early }) });
    const client = await open([gw.url]);
    const received: Signal[] = [];
    const unsubscribe = client.onSignal((signal) => {
      received.push(signal);
    });

    const later = signalOf('aid');
    gw.current!.send({ type: 'signal', seq: 2, signal: later });
    await eventually(() => received.length === 2, 'both signals');
    expect(received.map((signal) => signal.header.id)).toEqual([early.header.id, later.header.id]);
    // The pushed signal is known now: a wrong action is caught client-side.
    expect((await rejection(client.respond(later.header.id, 'dismiss'))).code).toBe('E_INVALID_ACTION');
    unsubscribe();
  });
});

describe('close', () => {
  it('rejects pending requests with E_CLOSED, closes with 1000 and does not reconnect', async () => {
    const gw = await gateway();
    const client = await open([gw.url]);
    const pending = rejection(client.hook('pre-tool-use', {}));
    await eventually(() => gw.framesOf('hook').length === 1, 'the hook at the gateway');

    await client.close();

    expect((await pending).code).toBe('E_CLOSED');
    expect(client.state).toBe('closed');
    expect(await gw.peers[0]!.closed).toBe(1000);
    expect((await rejection(client.hook('pre-tool-use', {}))).code).toBe('E_CLOSED');
    expect((await rejection(client.respond('5e0f9a1b-3c2d-4e5f-8a9b-0c1d2e3f4a5b', 'acknowledge'))).code).toBe('E_CLOSED');
    await client.close();
    await settle();
    expect(gw.upgrades).toBe(1);
  });
});
