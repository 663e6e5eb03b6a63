/**
 * The WebSocket seam: one small interface over the two implementations the SDK runs on.
 *
 * - `ws` (Node): the token goes in the `Authorization: Bearer` header, a refused upgrade reports
 *   its HTTP status (401 → `E_UNAUTHORIZED` without a retry), and the gateway's pings are visible,
 *   so liveness needs no extra traffic.
 * - a WHATWG `WebSocket` (browsers, Deno, workers, or any constructor passed in): the token goes in
 *   `?token=` because that API cannot set headers; a refused upgrade is indistinguishable from a
 *   network failure, and pings are invisible.
 *
 * `ws` is loaded with a dynamic `import('ws')` only when needed, so nothing Node-specific sits on
 * the module graph a browser bundle evaluates.
 *
 * This module is the `@ahp/sdk/transport` entry point: a custom stack implements
 * {@link TransportFactory} (or wraps the one {@link resolveTransport} returns) and passes it as
 * `ClientOptions.transport`.
 */
import type { Logger } from './logger.js';

/** How a transport ended. Reported exactly once per transport. */
export interface TransportCloseInfo {
  /** The WebSocket close code (1006 when the connection dropped without a close frame). */
  readonly code: number;
  /** The close reason text (may be empty). */
  readonly reason: string;
  /** Whether the upgrade had succeeded: false means the socket never opened. */
  readonly wasOpen: boolean;
  /** HTTP status of a refused upgrade, when the implementation exposes it (only `ws` does). */
  readonly httpStatus?: number;
  /** The low-level error, when there was one (for logs only). */
  readonly error?: unknown;
}

/** Callbacks a transport makes. Never called synchronously from the factory itself. */
export interface TransportHandlers {
  /** The upgrade succeeded; frames may be sent. */
  open(): void;
  /** One text message arrived. Binary messages are dropped: the protocol has none. */
  message(text: string): void;
  /** A ping or pong arrived: the peer is alive although it sent no frame. */
  activity(): void;
  /** The transport ended. Exactly once, also after {@link Transport.terminate}. */
  close(info: TransportCloseInfo): void;
}

/** What a transport needs to open one connection. */
export interface TransportConnectOptions {
  /** The gateway endpoint, `ws(s)://host/v1/agents`, without the token. */
  readonly url: string;
  /** The bearer token. */
  readonly token: string;
  /** Largest message accepted from the gateway, where the implementation can enforce it (`ws`). */
  readonly maxPayloadBytes: number;
  readonly logger: Logger;
}

/** One WebSocket connection attempt. */
export interface Transport {
  /** Whether WebSocket pings reach {@link TransportHandlers.activity} (true for `ws`, false for WHATWG sockets). */
  readonly seesPings: boolean;
  /** Sends one text frame; false when the socket is not open (the frame was not sent). */
  send(text: string): boolean;
  /** Starts a clean close; {@link TransportHandlers.close} follows when the peer answers. */
  close(code: number, reason: string): void;
  /**
   * Drops the connection at once, without waiting for the peer (it may be dead). Reports
   * `close` with code 1006 synchronously; later events of the socket are ignored.
   */
  terminate(reason: string): void;
}

/** Opens one connection. Must not throw for network problems (those are reported through `close`). */
export type TransportFactory = (options: TransportConnectOptions, handlers: TransportHandlers) => Transport;

/** The parts of an event the WHATWG socket path reads. */
export interface WebSocketEventLike {
  readonly type: string;
  readonly data?: unknown;
  readonly code?: number;
  readonly reason?: string;
}

/** The subset of the WHATWG `WebSocket` the SDK uses; browsers', Node 22's and `ws`'s classes all fit. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: WebSocketEventLike) => void): void;
}

/** A WHATWG-style `WebSocket` constructor. */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

const OPEN = 1;
const ABNORMAL_CLOSURE = 1006;

/** `url` with the token in its `token` query parameter (replacing any there), for sockets that cannot set headers. */
export function urlWithToken(url: string, token: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('token', token);
  return parsed.toString();
}

/** `url` safe to log: a `token` query parameter is masked. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.searchParams.has('token')) parsed.searchParams.set('token', 'REDACTED');
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(invalid url)';
  }
}

/** Reports `close` at most once and ignores everything after it. */
class CloseOnce {
  #done = false;
  get done(): boolean {
    return this.#done;
  }
  report(handlers: TransportHandlers, info: TransportCloseInfo): void {
    if (this.#done) return;
    this.#done = true;
    handlers.close(info);
  }
}

/**
 * A transport over a WHATWG-style `WebSocket` constructor. The token travels as `?token=`;
 * close codes other than 1000 and 3000–4999 are not allowed by that API and are sent as 1000.
 */
export function webSocketTransport(WebSocketImpl: WebSocketConstructor): TransportFactory {
  return (options, handlers) => {
    const socket = new WebSocketImpl(urlWithToken(options.url, options.token));
    const once = new CloseOnce();
    let opened = false;
    let lastError: unknown;
    socket.addEventListener('open', () => {
      if (once.done) return;
      opened = true;
      handlers.open();
    });
    socket.addEventListener('message', (event) => {
      if (once.done) return;
      if (typeof event.data === 'string') handlers.message(event.data);
      else options.logger.warn({ url: options.url }, 'dropped a binary message: the protocol only uses text frames');
    });
    socket.addEventListener('error', (event) => {
      // The WHATWG error event carries no detail; remember it so the close report can mention it.
      lastError = event;
    });
    socket.addEventListener('close', (event) => {
      once.report(handlers, {
        code: event.code ?? ABNORMAL_CLOSURE,
        reason: event.reason ?? '',
        wasOpen: opened,
        ...(lastError === undefined ? {} : { error: lastError }),
      });
    });
    return {
      seesPings: false,
      send(text) {
        if (once.done || socket.readyState !== OPEN) return false;
        socket.send(text);
        return true;
      },
      close(code, reason) {
        try {
          socket.close(code === 1000 || (code >= 3000 && code <= 4999) ? code : 1000, reason);
        } catch (error) {
          options.logger.debug({ error: String(error) }, 'socket close threw; terminating');
          this.terminate(reason);
        }
      },
      terminate(reason) {
        try {
          socket.close(1000, reason);
        } catch {
          // Already closing or closed: nothing left to stop.
        }
        once.report(handlers, { code: ABNORMAL_CLOSURE, reason, wasOpen: opened });
      },
    };
  };
}

/** What the SDK uses of the `ws` module; typed locally so the public declarations do not need `@types/ws`. */
interface WsModule {
  WebSocket: new (
    url: string,
    options: { headers: Record<string, string>; maxPayload: number },
  ) => WsSocket;
}

interface WsSocket {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  on(event: 'open' | 'ping' | 'pong', listener: () => void): this;
  on(event: 'message', listener: (data: unknown, isBinary: boolean) => void): this;
  on(event: 'close', listener: (code: number, reason: { toString(): string }) => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  on(event: 'unexpected-response', listener: (request: unknown, response: { statusCode?: number; resume(): void }) => void): this;
}

function decodeText(data: unknown): string {
  if (typeof data === 'string') return data;
  if (Array.isArray(data)) return Buffer.concat(data as Uint8Array[]).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return Buffer.from(data as Uint8Array).toString('utf8');
}

/** A transport over the `ws` module: bearer header, `maxPayload`, visible pings, HTTP status of a refused upgrade. */
export function wsTransport(ws: WsModule): TransportFactory {
  return (options, handlers) => {
    const socket = new ws.WebSocket(options.url, {
      headers: { Authorization: `Bearer ${options.token}` },
      maxPayload: options.maxPayloadBytes,
    });
    const once = new CloseOnce();
    let opened = false;
    let httpStatus: number | undefined;
    let lastError: Error | undefined;
    socket.on('open', () => {
      if (once.done) return;
      opened = true;
      handlers.open();
    });
    socket.on('message', (data, isBinary) => {
      if (once.done) return;
      if (isBinary) {
        options.logger.warn({ url: options.url }, 'dropped a binary message: the protocol only uses text frames');
        return;
      }
      handlers.message(decodeText(data));
    });
    socket.on('ping', () => {
      if (!once.done) handlers.activity();
    });
    socket.on('pong', () => {
      if (!once.done) handlers.activity();
    });
    // With a listener here, ws leaves the failed handshake to us: keep the status, drain the body, drop the socket.
    socket.on('unexpected-response', (_request, response) => {
      httpStatus = response.statusCode;
      response.resume();
      socket.terminate();
    });
    // Without an 'error' listener an EventEmitter throws; the close event that follows carries the outcome.
    socket.on('error', (error) => {
      lastError = error;
    });
    socket.on('close', (code, reason) => {
      once.report(handlers, {
        code,
        reason: reason.toString(),
        wasOpen: opened,
        ...(httpStatus === undefined ? {} : { httpStatus }),
        ...(lastError === undefined ? {} : { error: lastError }),
      });
    });
    return {
      seesPings: true,
      send(text) {
        if (once.done || socket.readyState !== OPEN) return false;
        socket.send(text);
        return true;
      },
      close(code, reason) {
        try {
          socket.close(code, reason);
        } catch (error) {
          options.logger.debug({ error: String(error) }, 'socket close threw; terminating');
          this.terminate(reason);
        }
      },
      terminate(reason) {
        socket.terminate();
        once.report(handlers, { code: ABNORMAL_CLOSURE, reason, wasOpen: opened });
      },
    };
  };
}

/** Which implementation {@link resolveTransport} picks when none is given. */
export interface ResolveTransportOptions {
  /**
   * A WHATWG-style constructor to use instead of detection (token as `?token=`).
   * @defaultValue detected: `ws` under Node, else the global `WebSocket`
   */
  WebSocket?: WebSocketConstructor;
  /** A complete transport factory (tests, custom stacks). Wins over `WebSocket`. */
  transport?: TransportFactory;
}

function isNode(): boolean {
  const versions = (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions;
  return typeof versions?.node === 'string';
}

function globalWebSocket(): WebSocketConstructor | undefined {
  const candidate = (globalThis as { WebSocket?: unknown }).WebSocket;
  return typeof candidate === 'function' ? (candidate as WebSocketConstructor) : undefined;
}

/**
 * Chooses the transport:
 * 1. `options.transport`, then `options.WebSocket` when given;
 * 2. under Node, `ws` (loaded on demand) — preferred even where Node has a global `WebSocket`
 *    (22+), because only `ws` keeps the token out of the URL (and so out of access logs), reports
 *    a 401 as such and sees the gateway's pings;
 * 3. the global `WebSocket` (browsers, Deno, workers; also Node when `ws` cannot be loaded).
 *
 * Rejects with a plain `Error` when no implementation is available; the client turns it into a
 * typed error.
 */
export async function resolveTransport(options: ResolveTransportOptions = {}): Promise<TransportFactory> {
  if (options.transport !== undefined) return options.transport;
  if (options.WebSocket !== undefined) return webSocketTransport(options.WebSocket);
  if (isNode()) {
    try {
      const ws = (await import('ws')) as unknown as WsModule;
      return wsTransport(ws);
    } catch (error) {
      const fallback = globalWebSocket();
      if (fallback !== undefined) return webSocketTransport(fallback);
      throw new Error('no WebSocket implementation: the "ws" module could not be loaded', { cause: error });
    }
  }
  const fallback = globalWebSocket();
  if (fallback !== undefined) return webSocketTransport(fallback);
  throw new Error('no WebSocket implementation: pass options.WebSocket');
}
