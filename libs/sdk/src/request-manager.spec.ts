import { makeError } from '@ahp/protocol/wire';
import type { AckFrame, DecisionFrame, HookFrame, SignalResponseFrame } from '@ahp/protocol/wire';
import { describe, expect, it } from 'vitest';
import { AhpClientError } from './errors.js';
import { RequestManager } from './request-manager.js';
import type { RequestChannel } from './request-manager.js';

const HOOK_ID = '6f1c1a52-4c1e-4f55-9a57-0a8d6a3e9b10';

function hook(id = HOOK_ID): HookFrame {
  return { type: 'hook', id, trigger: 'pre-tool-use', context: { tool: { name: 'bash', input: {} } } };
}

function signalResponse(id: string): SignalResponseFrame {
  return {
    type: 'signal_response',
    id,
    response: { signal_id: '0b7f0f7e-8d64-4a51-b1f6-0d8b2a0f4c11', consumed_at: '2026-02-09T10:00:00Z', action: 'acknowledge' },
  };
}

function decision(id = HOOK_ID, configVersion = 1): DecisionFrame {
  return {
    type: 'decision',
    id,
    decision: {
      hook_id: id,
      trigger: 'pre-tool-use',
      allowed: true,
      intensity: null,
      signals: [],
      modifications: [],
      warnings: [],
      decided_by: 'oracles',
      config_version: configVersion,
      decided_at: '2026-02-09T10:00:00Z',
    },
  };
}

function ack(id: string): AckFrame {
  return { type: 'ack', id };
}

/** A channel that records what was sent. */
function channel(options: { maxInFlight?: number; maxFrameBytes?: number; accept?: boolean } = {}) {
  const sent: string[] = [];
  const ch: RequestChannel & { sent: string[]; ids(): string[] } = {
    sent,
    maxInFlight: options.maxInFlight ?? 100,
    maxFrameBytes: options.maxFrameBytes ?? 1024 * 1024,
    send(text) {
      if (options.accept === false) return false;
      sent.push(text);
      return true;
    },
    ids: () => sent.map((text) => (JSON.parse(text) as { id: string }).id),
  };
  return ch;
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

describe('RequestManager', () => {
  it('sends at once when attached and resolves with the matching reply', async () => {
    const manager = new RequestManager();
    const ch = channel();
    manager.attach(ch);
    const pending = manager.send(hook(), { deadlineMs: 5_000 });
    expect(ch.ids()).toEqual([HOOK_ID]);
    expect(manager.settle(decision())).toBe('settled');
    await expect(pending).resolves.toEqual(decision());
    expect(manager.size).toBe(0);
  });

  it('resolves once: a second reply for the same id is ignored', async () => {
    const manager = new RequestManager();
    manager.attach(channel());
    const pending = manager.send(hook(), { deadlineMs: 5_000 });
    expect(manager.settle(decision(HOOK_ID, 1))).toBe('settled');
    expect(manager.settle(decision(HOOK_ID, 2))).toBe('unknown');
    const reply = await pending;
    expect(reply.decision.config_version).toBe(1);
  });

  it('queues while detached and sends on attach', async () => {
    const manager = new RequestManager();
    const pending = manager.send(hook(), { deadlineMs: 5_000 });
    const ch = channel();
    expect(ch.sent).toEqual([]);
    manager.attach(ch);
    expect(ch.ids()).toEqual([HOOK_ID]);
    manager.settle(decision());
    await pending;
  });

  it('re-sends every pending frame, unchanged and in creation order, after each attach', () => {
    const manager = new RequestManager();
    const first = channel();
    manager.attach(first);
    const ids = [HOOK_ID, '2b1e5c3d-9f3a-4d2b-8c1e-5a6b7c8d9e0f'];
    const promises = [
      manager.send(hook(ids[0]), { deadlineMs: 5_000 }),
      manager.send(signalResponse('resp-1'), { deadlineMs: 5_000 }),
      manager.send(hook(ids[1]), { deadlineMs: 5_000 }),
    ];
    manager.settle(ack('resp-1'));
    manager.detach();
    const second = channel();
    manager.attach(second);
    expect(second.ids()).toEqual(ids);
    expect(second.sent[0]).toBe(first.sent[0]);
    expect(second.sent[1]).toBe(first.sent[2]);
    manager.close(new AhpClientError('E_CLOSED', 'test end'));
    return Promise.allSettled(promises);
  });

  it('never has more than max_in_flight frames out, and sends the next as replies come', async () => {
    const manager = new RequestManager();
    const ch = channel({ maxInFlight: 2 });
    manager.attach(ch);
    const a = manager.send(signalResponse('a'), { deadlineMs: 5_000 });
    const b = manager.send(signalResponse('b'), { deadlineMs: 5_000 });
    const c = manager.send(signalResponse('c'), { deadlineMs: 5_000 });
    expect(ch.ids()).toEqual(['a', 'b']);
    manager.settle(ack('a'));
    expect(ch.ids()).toEqual(['a', 'b', 'c']);
    manager.settle(ack('b'));
    manager.settle(ack('c'));
    await Promise.all([a, b, c]);
  });

  it('rejects everything pending, and everything after, with the close error', async () => {
    const manager = new RequestManager();
    manager.attach(channel());
    const a = manager.send(hook(), { deadlineMs: 5_000 });
    const b = manager.send(signalResponse('b'), { deadlineMs: 5_000 });
    manager.close(new AhpClientError('E_CLOSED', 'bye'));
    expect((await rejection(a)).code).toBe('E_CLOSED');
    expect((await rejection(b)).code).toBe('E_CLOSED');
    expect((await rejection(manager.send(signalResponse('c'), { deadlineMs: 5_000 }))).code).toBe('E_CLOSED');
    expect(manager.size).toBe(0);
  });

  it('rejects with E_TIMEOUT at the per-request deadline, while others keep waiting', async () => {
    const manager = new RequestManager();
    const ch = channel();
    manager.attach(ch);
    const short = manager.send(signalResponse('short'), { deadlineMs: 10 });
    const long = manager.send(signalResponse('long'), { deadlineMs: 60_000 });
    const error = await rejection(short);
    expect(error.code).toBe('E_TIMEOUT');
    expect(error.retryable).toBe(true);
    expect(error.details).toMatchObject({ id: 'short', deadline_ms: 10 });
    expect(manager.has('long')).toBe(true);
    // A reply after the deadline finds nothing to settle.
    expect(manager.settle(ack('short'))).toBe('unknown');
    manager.settle(ack('long'));
    await long;
  });

  it('turns an error reply into a typed error with the protocol code and retry hint', async () => {
    const manager = new RequestManager();
    manager.attach(channel());
    const pending = manager.send(hook(), { deadlineMs: 5_000 });
    manager.settle({ type: 'error', id: HOOK_ID, error: makeError('E_RATE_LIMITED', 'slow down', undefined, { retryAfterMs: 250 }) });
    const error = await rejection(pending);
    expect(error.code).toBe('E_RATE_LIMITED');
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBe(250);
  });

  it('rejects with E_PROTOCOL when the reply type does not fit the request', async () => {
    const manager = new RequestManager();
    manager.attach(channel());
    const pending = manager.send(hook(), { deadlineMs: 5_000 });
    manager.settle(ack(HOOK_ID));
    expect((await rejection(pending)).code).toBe('E_PROTOCOL');
  });

  it('keeps a request refused with E_SHUTTING_DOWN and sends it again on the next attach only', () => {
    const manager = new RequestManager();
    const draining = channel();
    manager.attach(draining);
    const pending = manager.send(hook(), { deadlineMs: 5_000 });
    expect(manager.settle({ type: 'error', id: HOOK_ID, error: makeError('E_SHUTTING_DOWN', 'draining') })).toBe('requeued');
    // Nothing goes back to the draining gateway, even when something else is sent meanwhile.
    void manager.send(signalResponse('other'), { deadlineMs: 5_000 }).catch(() => undefined);
    expect(draining.ids()).toEqual([HOOK_ID]);
    const next = channel();
    manager.attach(next);
    expect(next.ids()).toEqual([HOOK_ID, 'other']);
    manager.settle(decision());
    return pending;
  });

  it('refuses a second pending request with the same id (E_DUPLICATE_ID)', async () => {
    const manager = new RequestManager();
    const first = manager.send(hook(), { deadlineMs: 5_000 });
    expect((await rejection(manager.send(hook(), { deadlineMs: 5_000 }))).code).toBe('E_DUPLICATE_ID');
    manager.attach(channel());
    manager.settle(decision());
    await first;
  });

  it('refuses a frame larger than the gateway accepts without sending it (E_FRAME_TOO_LARGE)', async () => {
    const manager = new RequestManager();
    const ch = channel({ maxFrameBytes: 1024 });
    manager.attach(ch);
    const big: HookFrame = { ...hook(), context: { blob: 'x'.repeat(2_000) } };
    const error = await rejection(manager.send(big, { deadlineMs: 5_000 }));
    expect(error.code).toBe('E_FRAME_TOO_LARGE');
    expect(ch.sent).toEqual([]);
  });

  it('fail() rejects one pending request, e.g. when its reply could not be read', async () => {
    const manager = new RequestManager();
    const pending = manager.send(hook(), { deadlineMs: 5_000 });
    expect(manager.fail(HOOK_ID, new AhpClientError('E_PROTOCOL', 'unreadable'))).toBe(true);
    expect((await rejection(pending)).code).toBe('E_PROTOCOL');
    expect(manager.fail(HOOK_ID, new AhpClientError('E_PROTOCOL', 'again'))).toBe(false);
  });
});
