import { describe, expect, it } from 'vitest';
import type { Transport, TransportFactory, TransportHandlers } from '@ahp/sdk/transport';
import type { WireDecision } from './hook-ledger.js';
import { GatewayDirectory, WireTap, decisionFingerprint, decisionOf } from './wire-tap.js';

describe('GatewayDirectory', () => {
  it('resolves slot URLs to the gateway holding the slot, also after a replacement', () => {
    const directory = new GatewayDirectory(['ws://127.0.0.1:1001/v1/agents', 'ws://127.0.0.1:1002/v1/agents']);
    const [first, second] = directory.urls;
    expect(first).toBe('ws://gateway-1.chaos.invalid/v1/agents');
    expect(directory.resolve(second!)).toBe('ws://127.0.0.1:1002/v1/agents');
    directory.replace(1, 'ws://127.0.0.1:1003/v1/agents');
    expect(directory.resolve(second!)).toBe('ws://127.0.0.1:1003/v1/agents');
    expect(directory.slotOf('ws://127.0.0.1:1003/v1/agents')).toBe(1);
    expect(directory.slotOf('ws://127.0.0.1:1002/v1/agents')).toBe(-1);
    expect(directory.resolve('ws://elsewhere/v1/agents')).toBe('ws://elsewhere/v1/agents');
    expect(() => directory.replace(2, 'x')).toThrow(RangeError);
  });
});

describe('decisionOf', () => {
  const frame = {
    type: 'decision',
    id: 'h1',
    decision: { hook_id: 'h1', allowed: false, decided_by: 'failure_policy', decided_at: '2025-01-01T00:00:00.000Z' },
  };

  it('reads the hook id and a fingerprint of the decision', () => {
    expect(decisionOf(JSON.stringify(frame), 's/1')).toEqual({ hookId: 'h1', socket: 's/1', fingerprint: 'block/failure_policy/2025-01-01T00:00:00.000Z' });
    expect(decisionFingerprint(frame.decision)).toBe('block/failure_policy/2025-01-01T00:00:00.000Z');
  });

  it('ignores every other frame and anything unreadable', () => {
    expect(decisionOf(JSON.stringify({ type: 'ack', id: 'x' }), 's')).toBeUndefined();
    expect(decisionOf(JSON.stringify({ type: 'error', id: 'x', error: { code: 'E', message: 'decision' } }), 's')).toBeUndefined();
    expect(decisionOf('{"decision": not json', 's')).toBeUndefined();
  });
});

describe('WireTap', () => {
  /** A fake transport factory that records what it was asked and lets the test push frames. */
  function fakeBase() {
    const opened: { url: string; handlers: TransportHandlers; terminated: string[] }[] = [];
    const base: TransportFactory = (options, handlers) => {
      const entry = { url: options.url, handlers, terminated: [] as string[] };
      opened.push(entry);
      const transport: Transport = {
        seesPings: true,
        send: () => true,
        close: () => undefined,
        terminate: (reason) => {
          entry.terminated.push(reason);
          handlers.close({ code: 1006, reason, wasOpen: true });
        },
      };
      return transport;
    };
    return { base, opened };
  }

  const sdkHandlers = (received: string[], closes: number[]): TransportHandlers => ({
    open: () => undefined,
    message: (text) => received.push(text),
    activity: () => undefined,
    close: (info) => closes.push(info.code),
  });

  it('dials the resolved URL, reports decision frames per socket, and passes every frame on', () => {
    const { base, opened } = fakeBase();
    const decisions: WireDecision[] = [];
    const directory = new GatewayDirectory(['ws://127.0.0.1:2001/v1/agents']);
    const tap = new WireTap({ base, resolve: (url) => directory.resolve(url), name: 'alice', onDecision: (d) => decisions.push(d) });
    const received: string[] = [];
    const options = { url: directory.urls[0]!, token: 't', maxPayloadBytes: 1024, logger: { debug() {}, info() {}, warn() {}, error() {} } };
    tap.factory(options, sdkHandlers(received, []));
    tap.factory(options, sdkHandlers(received, []));
    expect(opened.map((entry) => entry.url)).toEqual(['ws://127.0.0.1:2001/v1/agents', 'ws://127.0.0.1:2001/v1/agents']);
    const decision = JSON.stringify({ type: 'decision', id: 'h', decision: { allowed: true, decided_by: 'oracles', decided_at: 't' } });
    opened[0]!.handlers.message(decision);
    opened[1]!.handlers.message(decision);
    opened[1]!.handlers.message('{"type":"goaway"}');
    expect(decisions.map((d) => d.socket)).toEqual(['alice/1', 'alice/2']);
    expect(received).toHaveLength(3);
    expect(tap.sockets).toBe(2);
  });

  it('terminates only the current socket, once', () => {
    const { base, opened } = fakeBase();
    const tap = new WireTap({ base, resolve: (url) => url, name: 'bob', onDecision: () => undefined });
    const closes: number[] = [];
    const options = { url: 'ws://x/v1/agents', token: 't', maxPayloadBytes: 1024, logger: { debug() {}, info() {}, warn() {}, error() {} } };
    expect(tap.terminate()).toBe(false);
    tap.factory(options, sdkHandlers([], closes));
    expect(tap.terminate()).toBe(true);
    expect(opened[0]!.terminated).toEqual(['chaos: socket dropped']);
    expect(closes).toEqual([1006]);
    expect(tap.terminate()).toBe(false);
  });
});
