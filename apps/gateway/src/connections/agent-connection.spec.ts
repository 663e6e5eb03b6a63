import { EventEmitter } from 'node:events';
import { CLOSE_CODES, type ServerFrame } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { JsonLogger } from '../logging/json-logger.js';
import { AgentConnection } from './agent-connection.js';

/**
 * The parts of a ws socket AgentConnection uses. `bufferedAmount` is what the kernel has not
 * accepted yet; no real socket can be made to hold a given amount deterministically, so the
 * backpressure rule is checked here against a stand-in.
 */
class StandInSocket extends EventEmitter {
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: string[] = [];
  readonly closes: { code: number; reason: string }[] = [];
  terminated = false;

  send(data: string, callback?: (error?: Error) => void): void {
    this.sent.push(data);
    this.bufferedAmount += data.length;
    callback?.();
  }

  close(code: number, reason: string): void {
    this.closes.push({ code, reason });
    this.readyState = 2;
  }

  terminate(): void {
    this.terminated = true;
    this.readyState = 3;
    this.emit('close', 1006, Buffer.alloc(0));
  }
}

const logs: string[] = [];
const agent = { identity: { id: 'alpha', name: 'Alpha' }, tokenDigest: '0'.repeat(64) };
const ack: ServerFrame = { type: 'ack', id: 'a-1' };

function connection(socket: StandInSocket, maxBufferedBytes = 100): AgentConnection {
  return new AgentConnection(socket as unknown as WebSocket, agent, {
    maxBufferedBytes,
    slowConsumerCode: CLOSE_CODES.SLOW_CONSUMER,
    logger: new JsonLogger({ level: 'debug', write: (line) => logs.push(line) }),
    closeTimeoutMs: 10,
  });
}

describe('AgentConnection.send', () => {
  it('writes frames as JSON text while the send buffer is within its limit', () => {
    const socket = new StandInSocket();
    const conn = connection(socket);
    expect(conn.send(ack)).toBe(true);
    expect(socket.sent).toEqual([JSON.stringify(ack)]);
  });

  it('closes a slow consumer with a reconnect-range code instead of buffering more', async () => {
    const socket = new StandInSocket();
    const conn = connection(socket, 100);
    socket.bufferedAmount = 101;
    expect(conn.send(ack)).toBe(false);
    expect(socket.sent).toEqual([]);
    expect(socket.closes).toEqual([{ code: CLOSE_CODES.SLOW_CONSUMER, reason: 'slow consumer' }]);
    expect(CLOSE_CODES.SLOW_CONSUMER).toBeGreaterThanOrEqual(4000);
    expect(CLOSE_CODES.SLOW_CONSUMER).toBeLessThan(4100);
    expect(conn.state).toBe('closing');
    // A peer that does not complete the close handshake is destroyed, not waited for.
    await conn.closed;
    expect(socket.terminated).toBe(true);
    expect(logs.some((line) => line.includes('closing a slow consumer'))).toBe(true);
  });

  it('sends nothing once the socket is no longer open', () => {
    const socket = new StandInSocket();
    const conn = connection(socket);
    socket.readyState = 2;
    expect(conn.send(ack)).toBe(false);
    expect(conn.fail('x', 'E_INTERNAL', 'boom')).toBe(false);
    expect(socket.sent).toEqual([]);
  });

  it('builds error frames from the protocol table', () => {
    const socket = new StandInSocket();
    connection(socket).fail('r-1', 'E_NOT_FOUND', 'no such signal', { signal_id: 's' });
    expect(JSON.parse(socket.sent[0]!)).toEqual({
      type: 'error',
      id: 'r-1',
      error: { code: 'E_NOT_FOUND', message: 'no such signal', retryable: false, details: { signal_id: 's' } },
    });
  });
});

describe('AgentConnection.push', () => {
  const message = { id: 'msg-1', from: 'alpha', to: 'beta', content: 'hi', type: 'message' as const, metadata: {}, sent_at: '2026-02-09T10:00:00Z' };

  it('numbers pushes from 1 for a new session and after last_seq for a resumed one', () => {
    const fresh = new StandInSocket();
    const first = connection(fresh, 10_000);
    first.push({ type: 'inbox', message });
    first.push({ type: 'inbox', message });
    expect(fresh.sent.map((text) => (JSON.parse(text) as { seq: number }).seq)).toEqual([1, 2]);

    const resumed = new StandInSocket();
    const second = connection(resumed, 10_000);
    second.startPushesAfter(17);
    second.push({ type: 'inbox', message });
    expect(JSON.parse(resumed.sent[0]!)).toMatchObject({ type: 'inbox', seq: 18, message: { id: 'msg-1' } });
  });
});
