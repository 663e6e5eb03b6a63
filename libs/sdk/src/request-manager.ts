/**
 * Pending requests by id: every frame the client sent (or will send) and is waiting for a reply
 * to. It outlives connections — that is the point — so a hook asked just before a gateway died is
 * re-sent, with the same id, on the next connection, and the gateway answers it with the decision
 * of the first evaluation.
 *
 * Guarantees:
 * - every request settles exactly once: with its reply, its deadline (`E_TIMEOUT`), or the final
 *   close; a second reply for the same id (the gateway answered before and after a resume) finds
 *   nothing pending and is ignored;
 * - after every `attach` (every `welcome`) all pending frames are sent again, unchanged, in the
 *   order they were created, never more than the gateway's `max_in_flight` at once;
 * - `close(error)` rejects everything pending with `error` and refuses new requests with it.
 */
import { REPLY_TYPE_FOR, utf8ByteLength } from '@ahp/protocol/wire';
import type { AckFrame, ClientFrame, DecisionFrame, ReplyFrame, WelcomeFrame } from '@ahp/protocol/wire';
import { AhpClientError } from './errors.js';
import type { Logger } from './logger.js';
import { silentLogger } from './logger.js';

/** The frames the request manager sends; `hello` belongs to the connection, which sends it once per socket. */
export type ManagedFrame = Exclude<ClientFrame, { type: 'hello' }>;

/** The success reply a managed frame gets: a `decision` for a hook, an `ack` for everything else. */
export type SuccessReplyFor<F extends ManagedFrame> = F extends { type: 'hook' } ? DecisionFrame : AckFrame;

/** Where pending frames go while a connection is welcomed. */
export interface RequestChannel {
  /** Sends one serialized frame; false when it could not be sent (the socket is gone). */
  send(text: string): boolean;
  /** `welcome.limits.max_in_flight`: requests awaiting a reply at once on this connection. */
  readonly maxInFlight: number;
  /** `welcome.limits.max_frame_bytes`: larger frames are refused here instead of by the gateway. */
  readonly maxFrameBytes: number;
}

/** Per-request options. */
export interface RequestOptions {
  /** Reject with `E_TIMEOUT` when no reply arrived this long after the call, across reconnects. */
  deadlineMs: number;
}

/** What {@link RequestManager.settle} did with a reply. */
export type SettleOutcome =
  /** The reply settled its request. */
  | 'settled'
  /** No request with this id is pending (already settled, timed out, or never sent): ignored. */
  | 'unknown'
  /** `E_SHUTTING_DOWN`: the request stays pending and goes out again after the next welcome. */
  | 'requeued';

interface Pending {
  readonly id: string;
  readonly type: ManagedFrame['type'];
  readonly text: string;
  readonly bytes: number;
  inFlight: boolean;
  timer: ReturnType<typeof setTimeout> | undefined;
  resolve(reply: DecisionFrame | AckFrame): void;
  reject(error: AhpClientError): void;
}

/** Options of a {@link RequestManager}. */
export interface RequestManagerOptions {
  /** @defaultValue a logger that drops everything */
  logger?: Logger;
}

/** See the module comment for the guarantees. */
export class RequestManager {
  readonly #pending = new Map<string, Pending>();
  readonly #logger: Logger;
  #channel: RequestChannel | undefined;
  #inFlight = 0;
  #closed: AhpClientError | undefined;

  constructor(options: RequestManagerOptions = {}) {
    this.#logger = options.logger ?? silentLogger;
  }

  /** Requests awaiting a reply. */
  get size(): number {
    return this.#pending.size;
  }

  /** Whether a request with this id is pending. */
  has(id: string): boolean {
    return this.#pending.has(id);
  }

  /**
   * Registers `frame` and sends it now when a channel is attached and below its in-flight limit,
   * else with the next {@link attach}. Resolves with the success reply; rejects with the gateway's
   * error, `E_TIMEOUT` at the deadline, `E_FRAME_TOO_LARGE`, `E_DUPLICATE_ID`, or the close error.
   */
  send<F extends ManagedFrame>(frame: F, options: RequestOptions): Promise<SuccessReplyFor<F>> {
    if (this.#closed !== undefined) return Promise.reject(this.#closed);
    if (this.#pending.has(frame.id)) {
      return Promise.reject(
        new AhpClientError('E_DUPLICATE_ID', `a request with id ${frame.id} is already pending`, { details: { id: frame.id } }),
      );
    }
    const text = JSON.stringify(frame);
    return new Promise<SuccessReplyFor<F>>((resolve, reject) => {
      const pending: Pending = {
        id: frame.id,
        type: frame.type,
        text,
        bytes: utf8ByteLength(text),
        inFlight: false,
        timer: undefined,
        resolve: resolve as (reply: DecisionFrame | AckFrame) => void,
        reject,
      };
      pending.timer = setTimeout(() => this.#expire(pending, options.deadlineMs), options.deadlineMs);
      this.#pending.set(frame.id, pending);
      this.#flush();
    });
  }

  /**
   * A connection was welcomed: from now on frames go to `channel`. Everything pending is sent
   * again — also frames that were sent on the previous connection, since their replies may have
   * been lost with it; the gateway recognizes them by id.
   */
  attach(channel: RequestChannel): void {
    if (this.#closed !== undefined) return;
    this.#channel = channel;
    this.#inFlight = 0;
    for (const pending of this.#pending.values()) pending.inFlight = false;
    this.#flush();
  }

  /**
   * The connection is gone or draining: stop sending. Pending requests wait for the next
   * {@link attach}; a reply that still arrives on the old socket settles them all the same.
   */
  detach(): void {
    this.#channel = undefined;
    this.#inFlight = 0;
    for (const pending of this.#pending.values()) pending.inFlight = false;
  }

  /**
   * Settles the request a reply answers. The reply type must fit the request (`decision` for a
   * hook, `ack` otherwise); anything else rejects it with `E_PROTOCOL`.
   */
  settle(reply: Exclude<ReplyFrame, WelcomeFrame>): SettleOutcome {
    if (reply.id === null) return 'unknown';
    const pending = this.#pending.get(reply.id);
    if (pending === undefined) {
      this.#logger.debug({ requestId: reply.id, type: reply.type }, 'reply for no pending request ignored (duplicate or late)');
      return 'unknown';
    }
    if (reply.type === 'error' && reply.error.code === 'E_SHUTTING_DOWN') {
      // The gateway refused the work only because it is draining: the next gateway will take it.
      // Stop sending here at once, or the next flush would hand the frame straight back to it.
      this.detach();
      return 'requeued';
    }
    this.#remove(pending);
    if (reply.type === 'error') {
      pending.reject(AhpClientError.fromProtocol(reply.error));
    } else if (reply.type === REPLY_TYPE_FOR[pending.type]) {
      pending.resolve(reply);
    } else {
      pending.reject(
        new AhpClientError('E_PROTOCOL', `the gateway answered a ${pending.type} request with a ${reply.type} frame`, {
          details: { id: pending.id, request_type: pending.type, reply_type: reply.type },
        }),
      );
    }
    this.#flush();
    return 'settled';
  }

  /**
   * Rejects the pending request `id` with `error`, e.g. when the gateway's reply to it could not
   * be parsed. Returns whether such a request was pending.
   */
  fail(id: string, error: AhpClientError): boolean {
    const pending = this.#pending.get(id);
    if (pending === undefined) return false;
    this.#remove(pending);
    pending.reject(error);
    this.#flush();
    return true;
  }

  /** Final: rejects every pending request with `error` and every later one too. Idempotent; the first error stays. */
  close(error: AhpClientError): void {
    if (this.#closed !== undefined) return;
    this.#closed = error;
    this.#channel = undefined;
    const all = [...this.#pending.values()];
    this.#pending.clear();
    this.#inFlight = 0;
    for (const pending of all) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
  }

  #expire(pending: Pending, deadlineMs: number): void {
    if (this.#pending.get(pending.id) !== pending) return;
    this.#remove(pending);
    pending.reject(
      new AhpClientError('E_TIMEOUT', `no reply to ${pending.type} ${pending.id} within ${deadlineMs} ms`, {
        details: { id: pending.id, type: pending.type, deadline_ms: deadlineMs },
      }),
    );
    this.#flush();
  }

  #remove(pending: Pending): void {
    clearTimeout(pending.timer);
    this.#pending.delete(pending.id);
    if (pending.inFlight) {
      pending.inFlight = false;
      this.#inFlight -= 1;
    }
  }

  /** Sends queued frames, oldest first, while the channel has room. */
  #flush(): void {
    const channel = this.#channel;
    if (channel === undefined) return;
    for (const pending of this.#pending.values()) {
      if (this.#inFlight >= channel.maxInFlight) return;
      if (pending.inFlight) continue;
      if (pending.bytes > channel.maxFrameBytes) {
        this.#remove(pending);
        pending.reject(
          new AhpClientError('E_FRAME_TOO_LARGE', `${pending.type} frame is ${pending.bytes} bytes; the gateway accepts ${channel.maxFrameBytes}`, {
            details: { id: pending.id, bytes: pending.bytes, max_frame_bytes: channel.maxFrameBytes },
          }),
        );
        continue;
      }
      if (!channel.send(pending.text)) {
        // The socket went away under us; the connection will detach and attach again.
        return;
      }
      pending.inFlight = true;
      this.#inFlight += 1;
      this.#logger.debug({ requestId: pending.id, type: pending.type }, 'request sent');
    }
  }
}
