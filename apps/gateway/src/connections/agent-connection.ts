/**
 * One agent's WebSocket connection: its handshake state, its identity (from the upgrade, never
 * from a frame), and the one way to send it a frame.
 */
import { randomUUID } from 'node:crypto';
import { makeError, type AhpError, type CloseCode, type ServerFrame } from '@ahp/protocol';
import type { WebSocket } from 'ws';
import type { AuthenticatedAgent } from '../auth/agent-auth.service.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { AdmissionLane } from './admission-lane.js';
import { REFUSED_FRAME_BURST, REFUSED_FRAMES_PER_SECOND, TokenBucket } from './input-budget.js';

/**
 * Where a connection stands.
 * - `awaiting_hello`: upgraded and authenticated; only `hello` is accepted.
 * - `ready`: welcomed; requests are served.
 * - `closing`: replaced, draining or being closed; new requests are refused, replies to earlier
 *   ones are still sent while the socket is open.
 */
export type ConnectionState = 'awaiting_hello' | 'ready' | 'closing';

/** A push frame that carries a per-session `seq` (signal, request_update, inbox). */
type SequencedPush = Extract<ServerFrame, { seq: number }>;
/** A {@link SequencedPush} before the connection numbers it. */
export type UnsequencedPush = SequencedPush extends infer F ? (F extends SequencedPush ? Omit<F, 'seq'> : never) : never;

/**
 * Hooks of one connection being admitted (session, open-hook, queue add) at once. An SDK agent
 * has one or two in flight; a burst beyond this waits its turn instead of filling the Redis pipe.
 */
const HOOK_ADMISSIONS_AT_ONCE = 4;

/** ws readyState OPEN (the constant lives on the class, which this module only imports as a type). */
const WS_OPEN = 1;

/** Options of {@link AgentConnection}. */
export interface AgentConnectionOptions {
  /** Send buffer limit (`AHP_MAX_BUFFERED_BYTES`); above it the connection is closed as a slow consumer. */
  maxBufferedBytes: number;
  /** Close code used for a slow consumer (a reconnect-range code). */
  slowConsumerCode: CloseCode;
  logger: JsonLogger;
  /**
   * How long a close may wait for the peer's close frame before the socket is destroyed. ws' own
   * default is 30 s; a peer that stopped reading would hold its buffered frames that long.
   * @defaultValue `2000`
   */
  closeTimeoutMs?: number;
  /** Told the code of every error frame sent (metrics count errors by code). */
  onErrorSent?: (code: string) => void;
}

/** A connected agent and its socket. */
export class AgentConnection {
  /** Random id for logs; not sent to the agent. */
  readonly connectionId = randomUUID();
  readonly connectedAt: number;
  state: ConnectionState = 'awaiting_hello';
  /** Set by the handshake. */
  sessionId: string | undefined;
  /** Session ids other than {@link sessionId} this agent proved to own on this connection (multiplexing bridges). */
  readonly extraSessions = new Set<string>();
  /** A `hello` is being answered; a second one is refused meanwhile. */
  helloInFlight = false;
  /** Cleared on every ping, set on pong: false at the next ping means the peer is gone. */
  alive = true;
  /** Last presence refresh caused by this connection (epoch ms), for throttling. */
  lastTouchAt = 0;
  /**
   * Hook ids this connection has in flight: taken on arrival, before anything is awaited (see
   * {@link admitHook}), and kept while the gateway waits for the decision. Each with its place in
   * the connection's backlog when it arrived (how many were in flight, itself included), which
   * decides whether it is queued with the others or behind them (hooks/queue-priority.ts).
   */
  readonly pendingHooks = new Map<string, number>();
  /** Admissions of this connection's hooks in Redis, a few at a time (see admission-lane.ts). */
  readonly hookAdmissions = new AdmissionLane(HOOK_ADMISSIONS_AT_ONCE);
  /** Refused frames this connection may still send before it is closed with 4400 (see `input-budget.ts`). */
  readonly refusedFrames: TokenBucket;
  readonly log: JsonLogger;
  /** Resolves once the socket has closed (for the shutdown sequence). */
  readonly closed: Promise<void>;
  /** Closes the connection when no `hello` arrives in time; cleared by the handshake. */
  helloTimer: NodeJS.Timeout | undefined;
  private closeTimer: NodeJS.Timeout | undefined;
  /** The `seq` of the last push numbered on this connection. */
  private pushSeq = 0;

  constructor(
    readonly ws: WebSocket,
    readonly agent: AuthenticatedAgent,
    private readonly options: AgentConnectionOptions,
    now: number = Date.now(),
  ) {
    this.connectedAt = now;
    this.refusedFrames = new TokenBucket(REFUSED_FRAMES_PER_SECOND, REFUSED_FRAME_BURST, now);
    this.log = options.logger.child({ agentId: agent.identity.id, connectionId: this.connectionId });
    this.closed = new Promise((resolve) => ws.once('close', () => resolve()));
  }

  get agentId(): string {
    return this.agent.identity.id;
  }

  /** Whether frames can still be written (the socket is OPEN; not closing or closed). */
  get isOpen(): boolean {
    return this.ws.readyState === WS_OPEN;
  }

  /**
   * Sends one frame. Returns false when it was not sent: the socket is no longer open, or the
   * peer is not reading — the send buffer already holds more than `maxBufferedBytes`, and the
   * connection is closed as a slow consumer instead of letting the buffer grow without bound.
   * Nothing is lost by that: decisions stay in Redis, and the SDK re-sends its pending hooks
   * after reconnecting.
   */
  send(frame: ServerFrame): boolean {
    if (!this.isOpen) return false;
    if (this.ws.bufferedAmount > this.options.maxBufferedBytes) {
      this.log.warn(
        { bufferedBytes: this.ws.bufferedAmount, maxBufferedBytes: this.options.maxBufferedBytes, frameType: frame.type },
        'closing a slow consumer',
      );
      this.close(this.options.slowConsumerCode, 'slow consumer');
      return false;
    }
    this.ws.send(JSON.stringify(frame), (error) => {
      if (error !== undefined && error !== null) this.log.debug({ error: error.message, frameType: frame.type }, 'frame not sent');
    });
    return true;
  }

  /**
   * Numbers pushes from `lastSeq + 1` on. The handshake calls it with the client's `last_seq`
   * when the session resumed (0 for a new session): the SDK drops pushes whose `seq` it has
   * already processed, so a resumed session must never number below what the client saw, on
   * whichever gateway it saw it.
   */
  startPushesAfter(lastSeq: number): void {
    this.pushSeq = lastSeq;
  }

  /** Sends a push with the next `seq` of this session; false when it was not sent (see {@link send}). */
  push(frame: UnsequencedPush): boolean {
    this.pushSeq += 1;
    return this.send({ ...frame, seq: this.pushSeq } as SequencedPush);
  }

  /** Sends an `error` frame answering the request `id` (null when the request's id is unknown). */
  sendError(id: string | null, error: AhpError): boolean {
    this.options.onErrorSent?.(error.code);
    return this.send({ type: 'error', id, error });
  }

  /** Shorthand for an error built from the protocol's table. */
  fail(id: string | null, code: Parameters<typeof makeError>[0], message: string, details?: Parameters<typeof makeError>[2]): boolean {
    return this.sendError(id, makeError(code, message, details));
  }

  /**
   * Starts the close handshake with `code` and marks the connection `closing`. If the peer does
   * not answer within `closeTimeoutMs` the socket is destroyed, so a peer that stopped reading
   * cannot keep its buffers alive for ws' 30-second default.
   */
  close(code: number, reason: string): void {
    this.state = 'closing';
    if (this.ws.readyState >= 2) return;
    try {
      this.ws.close(code, reason.slice(0, 120));
    } catch (error) {
      this.log.debug({ error }, 'close failed; terminating');
      this.ws.terminate();
      return;
    }
    if (this.closeTimer === undefined) {
      this.closeTimer = setTimeout(() => {
        if (this.ws.readyState !== 3) this.ws.terminate();
      }, this.options.closeTimeoutMs ?? 2000);
      this.closeTimer.unref();
    }
  }

  /**
   * Takes a place for hook `hookId` among the `max` this connection may have in flight, in the
   * same synchronous step in which the frame arrived — so a burst sent at once is counted exactly,
   * instead of every frame passing the check before the first one awaited Redis. A hook id already
   * in flight (a re-send) takes no second place. False when there is no place left.
   */
  admitHook(hookId: string, max: number): boolean {
    if (this.pendingHooks.has(hookId)) return true;
    if (this.pendingHooks.size >= max) return false;
    this.pendingHooks.set(hookId, this.pendingHooks.size + 1);
    return true;
  }

  /** The place in this connection's backlog at which `hookId` arrived (1 when it is not in flight). */
  backlogPlaceOf(hookId: string): number {
    return this.pendingHooks.get(hookId) ?? 1;
  }

  /**
   * Closes with `code` and stops reading from the peer: a client that floods is not read any
   * further (ws would otherwise go on emitting what already arrived). The close frame still goes
   * out; the socket is destroyed after `closeTimeoutMs`, as the peer's answer is no longer read.
   */
  closeAndStopReading(code: number, reason: string): void {
    this.close(code, reason);
    try {
      this.ws.pause();
    } catch (error) {
      this.log.debug({ error }, 'pausing the socket failed');
    }
  }

  /** Destroys the socket at once (dead peer). */
  terminate(): void {
    this.state = 'closing';
    this.ws.terminate();
  }

  /** Releases timers; called once the socket closed. */
  dispose(): void {
    this.clearHelloTimer();
    if (this.closeTimer !== undefined) clearTimeout(this.closeTimer);
    this.closeTimer = undefined;
  }

  /** Stops the hello deadline (the handshake succeeded, or the connection is gone). */
  clearHelloTimer(): void {
    if (this.helloTimer !== undefined) clearTimeout(this.helloTimer);
    this.helloTimer = undefined;
  }
}
