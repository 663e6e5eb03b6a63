/**
 * One logical connection to the control plane, carried by a succession of sockets: it opens a
 * socket, says `hello`, waits for `welcome`, watches liveness, and when the socket ends decides
 * between reconnecting (with backoff, to the next gateway URL, resuming the session) and stopping
 * with a typed error. It knows nothing about hooks or signals: replies and pushes go to its
 * {@link ConnectionListener}, and the request manager decides what to re-send.
 *
 * State is an explicit union: `connecting` (no welcomed socket: handshaking or waiting to retry),
 * `open` (welcomed), `closing` (`close()` was called), `closed` (final).
 */
import { CLOSE_CODES, CLOSE_CODE_RANGES, PROTOCOL_VERSION, assertNever, closeCodeAllowsReconnect, parseServerFrame } from '@ahp/protocol/wire';
import type {
  AckFrame,
  WelcomeAgent,
  ConnectionLimits,
  DecisionFrame,
  ErrorFrame,
  GoawayFrame,
  HelloFrame,
  InboxAckFrame,
  InboxPushFrame,
  RequestUpdateFrame,
  ServerFrame,
  SignalPushFrame,
  WelcomeFrame,
  AhpError,
} from '@ahp/protocol/wire';
import { Backoff, goawayDelay } from './backoff.js';
import type { BackoffOptions } from './backoff.js';
import { AhpClientError, errorForCloseCode } from './errors.js';
import type { Logger } from './logger.js';
import { redactUrl } from './transport.js';
import type { Transport, TransportCloseInfo, TransportFactory, TransportHandlers } from './transport.js';

/** Where a connection is: see the module comment. */
export type ConnectionState = 'connecting' | 'open' | 'closing' | 'closed';

/** A state transition. `error` is set on `closed` and says why (`E_CLOSED` after `close()`). */
export interface StateChange {
  readonly state: ConnectionState;
  readonly previous: ConnectionState;
  readonly error?: AhpClientError;
}

/** What the gateway said in its `welcome`, plus which URL served it. */
export interface SessionInfo {
  /** The session this connection serves; sent back in the next `hello` to resume it. */
  readonly sessionId: string;
  /** True when the gateway resumed the session the client asked for; false for a new session. */
  readonly resumed: boolean;
  /** Who the token says this client is. */
  readonly agent: WelcomeAgent;
  readonly gatewayId: string;
  /** The gateway's ping interval; liveness is judged against it. */
  readonly heartbeatMs: number;
  readonly limits: ConnectionLimits;
  /** The gateway URL of this socket (never with a token in it). */
  readonly url: string;
}

/** A bearer token, or a function that returns the current one (called before every connection attempt). */
export type TokenSource = string | (() => string | Promise<string>);

/** What the connection reports upwards. Calls are synchronous and in wire order. */
export interface ConnectionListener {
  /** A `welcome` arrived. `send` writes to this socket until {@link unready}; false when it could not. */
  ready(session: SessionInfo, send: (text: string) => boolean): void;
  /** The welcomed socket is gone or draining: stop sending. May repeat. */
  unready(): void;
  /** A reply to a managed request (not the `hello`, not a liveness probe). */
  reply(frame: DecisionFrame | AckFrame | ErrorFrame): void;
  /** A reply that names request `id` could not be parsed; that request cannot succeed. */
  unreadableReply(id: string, error: AhpClientError): void;
  /** A push, already de-duplicated by `seq`. */
  push(frame: SignalPushFrame | RequestUpdateFrame | InboxPushFrame): void;
  goaway(frame: GoawayFrame): void;
  state(change: StateChange): void;
}

/** Everything a {@link Connection} needs; the client facade fills in the defaults. */
export interface ConnectionOptions {
  /** Gateway URLs; attempts go round-robin, starting with the first. */
  readonly urls: readonly string[];
  readonly token: TokenSource;
  readonly client: { readonly name: string; readonly version: string };
  readonly transport: TransportFactory;
  readonly backoff: BackoffOptions;
  /** From socket creation to `welcome`; longer means the attempt failed. */
  readonly handshakeTimeoutMs: number;
  /** Silence longer than `livenessFactor × welcome.heartbeat_ms` means the socket is dead. */
  readonly livenessFactor: number;
  /** Largest frame accepted from the gateway, in UTF-8 bytes. */
  readonly maxFrameBytes: number;
  readonly logger: Logger;
}

/** How long a clean close may take before the socket is dropped instead. */
const CLOSE_GRACE_MS = 2_000;
/** How long to stay away after close 4006 when the gateway's `E_RATE_LIMITED` gave no `retry_after_ms` (its own default). */
const DEFAULT_INPUT_BUDGET_RETRY_MS = 5_000;

/** Sent as a client close code when the client leaves a socket only to reconnect (goaway, a retryable hello error). */
const CLOSE_TO_RECONNECT = 4000;
/**
 * The message id of the liveness probe: an `inbox_ack` for a message that cannot exist. The
 * protocol acknowledges unknown ids, so the probe costs one round trip and changes nothing. It is
 * only sent where pings are invisible (WHATWG sockets) and the connection has been silent for a
 * whole heartbeat.
 */
export const LIVENESS_PROBE_MESSAGE_ID = 'ahp.sdk.liveness-probe';

function newId(): string {
  return globalThis.crypto.randomUUID();
}

function inStopRange(code: number): boolean {
  return code >= CLOSE_CODE_RANGES.stop.min && code <= CLOSE_CODE_RANGES.stop.max;
}

/** See the module comment. Create it, call {@link start}, end it with {@link close}. */
export class Connection {
  readonly #options: ConnectionOptions;
  readonly #listener: ConnectionListener;
  readonly #logger: Logger;
  readonly #backoff: Backoff;
  readonly #done: Promise<void>;
  #resolveDone!: () => void;

  #state: ConnectionState = 'connecting';
  /** Bumped for every socket and at the end: events of an older socket are ignored. */
  #generation = 0;
  #attempts = 0;
  #transport: Transport | undefined;
  #url = '';
  #helloId: string | undefined;
  #welcomed = false;
  #draining = false;
  /** The socket is being left on purpose to reconnect: reconnect whatever code it closes with (unless "stop"). */
  #leaving = false;
  /** Earliest time of the next attempt after a goaway. */
  #goawayAt: number | undefined;
  /** `retry_after_ms` of the latest connection-wide `E_RATE_LIMITED` (id null): the gateway's word on how long to stay away after 4006. */
  #rateLimitedRetryMs: number | undefined;
  /** An error that ends the connection once the current socket has closed. */
  #fatal: AhpClientError | undefined;
  #closeError: AhpClientError | undefined;
  #finalError: AhpClientError | undefined;
  #lastClose: TransportCloseInfo | undefined;

  #sessionId: string | undefined;
  #lastSeq = 0;
  #session: SessionInfo | undefined;
  #heartbeatMs = 0;
  #lastActivity = 0;
  #probeId: string | undefined;

  #reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  #handshakeTimer: ReturnType<typeof setTimeout> | undefined;
  #drainTimer: ReturnType<typeof setTimeout> | undefined;
  #graceTimer: ReturnType<typeof setTimeout> | undefined;
  #livenessTimer: ReturnType<typeof setInterval> | undefined;

  constructor(options: ConnectionOptions, listener: ConnectionListener) {
    if (options.urls.length === 0) throw new TypeError('at least one gateway URL is required');
    this.#options = options;
    this.#listener = listener;
    this.#logger = options.logger;
    this.#backoff = new Backoff(options.backoff);
    this.#done = new Promise<void>((resolve) => {
      this.#resolveDone = resolve;
    });
  }

  get state(): ConnectionState {
    return this.#state;
  }

  /** The session of the latest `welcome` (kept while reconnecting, so it can be resumed). */
  get session(): SessionInfo | undefined {
    return this.#session;
  }

  /** Why the connection closed; undefined until `closed`. */
  get error(): AhpClientError | undefined {
    return this.#finalError;
  }

  /** How the most recent socket ended, for diagnostics (e.g. why the first connect keeps failing). */
  get lastClose(): TransportCloseInfo | undefined {
    return this.#lastClose;
  }

  /** Opens the first socket. */
  start(): void {
    if (this.#attempts > 0 || this.#state !== 'connecting') return;
    void this.#open();
  }

  /**
   * Stop sending on this socket and move to the next gateway after `afterMs` (plus jitter), as
   * after a `goaway`. Replies to frames already sent are still read until the socket closes.
   */
  drain(afterMs: number, reason = 'draining'): void {
    if (this.#draining || this.#transport === undefined || this.#state === 'closing' || this.#state === 'closed') return;
    this.#draining = true;
    this.#listener.unready();
    const delay = goawayDelay(afterMs, this.#backoff.options);
    this.#goawayAt = Date.now() + delay;
    const generation = this.#generation;
    this.#drainTimer = setTimeout(() => {
      this.#drainTimer = undefined;
      if (generation !== this.#generation) return;
      // The gateway has not closed yet: leave it ourselves, it asked us to.
      this.#leaving = true;
      this.#closeSocket(CLOSE_TO_RECONNECT, reason);
    }, delay);
    this.#logger.info({ url: redactUrl(this.#url), reason, reconnectInMs: delay }, 'draining connection');
  }

  /**
   * Closes cleanly (1000) and for good: no reconnect. Resolves when the socket has closed (or was
   * dropped after a grace period). Idempotent.
   *
   * @param error - what the `closed` state reports; `E_CLOSED` when omitted.
   */
  close(error?: AhpClientError): Promise<void> {
    if (this.#state === 'closing' || this.#state === 'closed') return this.#done;
    this.#closeError = error ?? new AhpClientError('E_CLOSED', 'the client was closed');
    this.#clearTimers();
    this.#setState('closing');
    if (this.#transport === undefined) this.#finish(this.#closeError);
    else this.#closeSocket(1000, 'client closed');
    return this.#done;
  }

  // --- sockets -----------------------------------------------------------------------------

  async #open(): Promise<void> {
    const generation = ++this.#generation;
    const urls = this.#options.urls;
    const url = urls[this.#attempts % urls.length] ?? urls[0] ?? '';
    this.#attempts += 1;

    let token: string;
    try {
      const source = this.#options.token;
      token = typeof source === 'function' ? await source() : source;
      if (typeof token !== 'string' || token === '') throw new TypeError('the token function returned no token');
    } catch (error) {
      if (generation !== this.#generation) return;
      this.#logger.warn({ error: String(error) }, 'could not get a token; retrying');
      this.#scheduleReconnect();
      return;
    }
    if (generation !== this.#generation || this.#state === 'closing' || this.#state === 'closed') return;

    this.#url = url;
    this.#welcomed = false;
    this.#draining = false;
    this.#leaving = false;
    this.#helloId = undefined;
    this.#probeId = undefined;
    this.#logger.debug({ url: redactUrl(url), attempt: this.#attempts }, 'connecting');
    try {
      this.#transport = this.#options.transport(
        { url, token, maxPayloadBytes: this.#options.maxFrameBytes, logger: this.#logger },
        this.#handlersFor(generation),
      );
    } catch (error) {
      this.#finish(new AhpClientError('E_DISCONNECTED', `could not open a WebSocket to ${redactUrl(url)}`, { cause: error }));
      return;
    }
    this.#handshakeTimer = setTimeout(() => {
      this.#handshakeTimer = undefined;
      if (generation !== this.#generation || this.#welcomed) return;
      this.#logger.warn({ url: redactUrl(url), timeoutMs: this.#options.handshakeTimeoutMs }, 'no welcome within the handshake timeout');
      this.#transport?.terminate('handshake timeout');
    }, this.#options.handshakeTimeoutMs);
  }

  #handlersFor(generation: number): TransportHandlers {
    const current = (): boolean => generation === this.#generation;
    return {
      open: () => {
        if (current()) this.#onOpen();
      },
      message: (text) => {
        if (!current() || this.#state === 'closing') return;
        this.#lastActivity = Date.now();
        this.#onMessage(text);
      },
      activity: () => {
        if (current()) this.#lastActivity = Date.now();
      },
      close: (info) => {
        if (current()) this.#onClose(info);
      },
    };
  }

  #onOpen(): void {
    this.#lastActivity = Date.now();
    const id = newId();
    this.#helloId = id;
    const hello: HelloFrame = {
      type: 'hello',
      id,
      protocol: PROTOCOL_VERSION,
      client: { name: this.#options.client.name, version: this.#options.client.version },
      ...(this.#sessionId === undefined
        ? {}
        : { session_id: this.#sessionId, ...(this.#lastSeq > 0 ? { last_seq: this.#lastSeq } : {}) }),
    };
    this.#transport?.send(JSON.stringify(hello));
  }

  #onMessage(text: string): void {
    const parsed = parseServerFrame(text, this.#options.maxFrameBytes);
    if (!parsed.ok) {
      this.#logger.warn({
        url: redactUrl(this.#url),
        requestId: parsed.id,
        code: parsed.error.code,
        message: parsed.error.message,
      }, 'unreadable frame from the gateway');
      if (parsed.id === null) return;
      const error = new AhpClientError('E_PROTOCOL', `the gateway's reply could not be read: ${parsed.error.message}`, {
        details: { id: parsed.id, parse_error: { code: parsed.error.code, message: parsed.error.message } },
      });
      if (!this.#welcomed) {
        if (parsed.id === this.#helloId) this.#stop(error);
        return;
      }
      if (parsed.id === this.#probeId) return;
      this.#listener.unreadableReply(parsed.id, error);
      return;
    }
    const frame = parsed.frame;
    if (!this.#welcomed) {
      this.#onHandshakeFrame(frame);
      return;
    }
    switch (frame.type) {
      case 'welcome':
        this.#logger.warn({ url: redactUrl(this.#url) }, 'second welcome on one socket ignored');
        return;
      case 'decision':
      case 'ack':
      case 'error':
        if (frame.id !== null && frame.id === this.#probeId) {
          this.#probeId = undefined;
          return;
        }
        if (frame.type === 'error' && frame.id === null) {
          this.#logger.warn({ code: frame.error.code, message: frame.error.message }, 'gateway error for no identifiable request');
          if (frame.error.code === 'E_RATE_LIMITED') this.#rateLimitedRetryMs = frame.error.retry_after_ms ?? DEFAULT_INPUT_BUDGET_RETRY_MS;
          return;
        }
        this.#listener.reply(frame);
        return;
      case 'signal':
      case 'request_update':
      case 'inbox':
        if (frame.seq <= this.#lastSeq) {
          // Re-delivered after a resume: already handed to the application once.
          this.#logger.debug({ sessionId: this.#sessionId, seq: frame.seq, type: frame.type }, 'duplicate push dropped');
          return;
        }
        this.#lastSeq = frame.seq;
        this.#listener.push(frame);
        return;
      case 'goaway':
        this.#onGoaway(frame);
        return;
      default:
        assertNever(frame, 'server frame');
    }
  }

  #onHandshakeFrame(frame: ServerFrame): void {
    switch (frame.type) {
      case 'welcome':
        if (frame.id === this.#helloId) this.#onWelcome(frame);
        else this.#logger.warn({ requestId: frame.id }, 'welcome for another hello ignored');
        return;
      case 'error':
        if (frame.id === this.#helloId || frame.id === null) this.#onHelloError(frame.error);
        else this.#logger.warn({ requestId: frame.id, code: frame.error.code }, 'error frame before welcome ignored');
        return;
      case 'goaway':
        this.#onGoaway(frame);
        return;
      default:
        this.#logger.warn({ type: frame.type }, 'frame before welcome ignored');
    }
  }

  #onWelcome(frame: WelcomeFrame): void {
    clearTimeout(this.#handshakeTimer);
    this.#handshakeTimer = undefined;
    if (frame.protocol !== PROTOCOL_VERSION) {
      this.#stop(
        new AhpClientError('E_UNSUPPORTED_VERSION', `the gateway chose protocol ${frame.protocol}; this client speaks ${PROTOCOL_VERSION}`, {
          details: { protocol: frame.protocol, supported: [PROTOCOL_VERSION] },
        }),
      );
      return;
    }
    const resumed = frame.resumed && frame.session_id === this.#sessionId;
    // A new session numbers its pushes from 1 again.
    if (!resumed) this.#lastSeq = 0;
    this.#sessionId = frame.session_id;
    this.#welcomed = true;
    this.#heartbeatMs = frame.heartbeat_ms;
    this.#lastActivity = Date.now();
    this.#backoff.opened(Date.now());
    const session: SessionInfo = {
      sessionId: frame.session_id,
      resumed,
      agent: frame.agent,
      gatewayId: frame.gateway_id,
      heartbeatMs: frame.heartbeat_ms,
      limits: frame.limits,
      url: redactUrl(this.#url),
    };
    this.#session = session;
    this.#startLiveness();
    this.#logger.info({ url: session.url, sessionId: session.sessionId, resumed, gatewayId: session.gatewayId }, 'connected');
    this.#setState('open');
    // A state listener may have closed the client already; then there is nothing to attach.
    if (this.#state !== 'open') return;
    const generation = this.#generation;
    this.#listener.ready(session, (text) => {
      if (generation !== this.#generation || this.#draining || this.#state !== 'open') return false;
      return this.#transport?.send(text) ?? false;
    });
  }

  #onHelloError(error: AhpError): void {
    const clientError = AhpClientError.fromProtocol(error);
    if (error.retryable) {
      this.#logger.warn({ url: redactUrl(this.#url), code: error.code, message: error.message }, 'hello refused; retrying');
      this.#leaving = true;
      this.#closeSocket(CLOSE_TO_RECONNECT, 'hello refused');
      return;
    }
    this.#stop(clientError);
  }

  #onGoaway(frame: GoawayFrame): void {
    this.#logger.info({ url: redactUrl(this.#url), reason: frame.reason, reconnectAfterMs: frame.reconnect_after_ms }, 'goaway from the gateway');
    this.#listener.goaway(frame);
    this.drain(frame.reconnect_after_ms, 'goaway');
  }

  /** Ends the connection with `error` after closing the current socket cleanly. */
  #stop(error: AhpClientError): void {
    this.#fatal = error;
    this.#closeSocket(1000, error.code);
  }

  #closeSocket(code: number, reason: string): void {
    const transport = this.#transport;
    if (transport === undefined) return;
    transport.close(code, reason);
    if (this.#graceTimer !== undefined) return;
    const generation = this.#generation;
    this.#graceTimer = setTimeout(() => {
      this.#graceTimer = undefined;
      if (generation === this.#generation) this.#transport?.terminate('close timed out');
    }, CLOSE_GRACE_MS);
  }

  #onClose(info: TransportCloseInfo): void {
    this.#clearSocketTimers();
    this.#lastClose = info;
    this.#transport = undefined;
    const leaving = this.#leaving || this.#draining;
    this.#welcomed = false;
    this.#draining = false;
    this.#leaving = false;
    this.#probeId = undefined;
    this.#listener.unready();

    if (this.#state === 'closing') {
      this.#finish(this.#closeError ?? new AhpClientError('E_CLOSED', 'the client was closed'));
      return;
    }
    if (this.#fatal !== undefined) {
      this.#finish(this.#fatal);
      return;
    }
    const fields = {
      url: redactUrl(this.#url),
      code: info.code,
      reason: info.reason,
      ...(info.httpStatus === undefined ? {} : { httpStatus: info.httpStatus }),
      ...(info.error === undefined ? {} : { error: String(info.error) }),
    };
    if (info.httpStatus === 401 || info.httpStatus === 403) {
      const code = info.httpStatus === 401 ? 'E_UNAUTHORIZED' : 'E_FORBIDDEN';
      this.#logger.warn(fields, 'the gateway refused the upgrade');
      this.#finish(
        new AhpClientError(code, `the gateway refused the connection with HTTP ${info.httpStatus}`, {
          details: { http_status: info.httpStatus },
        }),
      );
      return;
    }
    const reconnect = closeCodeAllowsReconnect(info.code) || (leaving && !inStopRange(info.code));
    if (!reconnect) {
      this.#logger.warn(fields, 'connection closed for good');
      this.#finish(errorForCloseCode(info.code, info.reason));
      return;
    }
    if (info.code === CLOSE_CODES.CONNECTION_RATE_LIMITED) {
      // Over the input budget: an immediate retry would find the budget still spent and be closed
      // again. Stay away as long as the gateway said (jittered, so a fleet does not return in one
      // wave), and at least as long as the backoff's own growing delay.
      const awayMs = Math.max(goawayDelay(this.#rateLimitedRetryMs ?? DEFAULT_INPUT_BUDGET_RETRY_MS, this.#backoff.options), this.#backoff.next(Date.now()));
      this.#rateLimitedRetryMs = undefined;
      this.#goawayAt = Date.now() + awayMs;
      this.#logger.warn({ ...fields, reconnectInMs: awayMs }, 'closed for going over the input budget; backing off');
      this.#scheduleReconnect();
      return;
    }
    this.#logger.info(fields, 'connection lost; reconnecting');
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    const now = Date.now();
    // After a goaway the wait was announced by the gateway; a failure-free hand-over is not a failed attempt.
    const delay = this.#goawayAt !== undefined ? Math.max(0, this.#goawayAt - now) : this.#backoff.next(now);
    this.#goawayAt = undefined;
    this.#setState('connecting');
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      void this.#open();
    }, delay);
  }

  // --- liveness ----------------------------------------------------------------------------

  #startLiveness(): void {
    clearInterval(this.#livenessTimer);
    const interval = Math.max(50, Math.floor(this.#heartbeatMs / 2));
    this.#livenessTimer = setInterval(() => this.#checkLiveness(), interval);
  }

  /**
   * Any frame, ping or pong counts as traffic. With `ws` the gateway's pings keep a quiet
   * connection alive; a WHATWG socket hides pings, so after one silent heartbeat it sends a probe
   * whose ack is traffic. Past `livenessFactor × heartbeat` of silence the socket is dropped and
   * the client reconnects, without waiting for TCP to notice.
   */
  #checkLiveness(): void {
    const transport = this.#transport;
    if (transport === undefined || !this.#welcomed) return;
    const silentMs = Date.now() - this.#lastActivity;
    if (silentMs >= this.#heartbeatMs * this.#options.livenessFactor) {
      this.#logger.warn({
        url: redactUrl(this.#url),
        silentMs,
        heartbeatMs: this.#heartbeatMs,
      }, 'no traffic from the gateway; presuming the connection dead');
      this.#leaving = true;
      transport.terminate('liveness timeout');
      return;
    }
    if (!transport.seesPings && !this.#draining && this.#probeId === undefined && silentMs >= this.#heartbeatMs) {
      const probe: InboxAckFrame = { type: 'inbox_ack', id: `probe-${newId()}`, message_ids: [LIVENESS_PROBE_MESSAGE_ID] };
      if (transport.send(JSON.stringify(probe))) this.#probeId = probe.id;
    }
  }

  // --- bookkeeping -------------------------------------------------------------------------

  #clearSocketTimers(): void {
    clearTimeout(this.#handshakeTimer);
    clearTimeout(this.#drainTimer);
    clearTimeout(this.#graceTimer);
    clearInterval(this.#livenessTimer);
    this.#handshakeTimer = undefined;
    this.#drainTimer = undefined;
    this.#graceTimer = undefined;
    this.#livenessTimer = undefined;
  }

  #clearTimers(): void {
    this.#clearSocketTimers();
    clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
  }

  #finish(error: AhpClientError): void {
    if (this.#state === 'closed') return;
    this.#clearTimers();
    this.#generation += 1;
    const transport = this.#transport;
    this.#transport = undefined;
    transport?.terminate('closed');
    this.#finalError = error;
    this.#listener.unready();
    this.#setState('closed', error);
    this.#resolveDone();
  }

  #setState(state: ConnectionState, error?: AhpClientError): void {
    const previous = this.#state;
    if (previous === state) return;
    this.#state = state;
    this.#listener.state({ state, previous, ...(error === undefined ? {} : { error }) });
  }
}
