/**
 * The options of {@link connect} and how they are checked: every duration is a positive integer
 * of milliseconds, every URL a `ws:` or `wss:` one. A bad option throws a `TypeError` before
 * anything connects.
 */
import type { BackoffOptions } from './backoff.js';
import { resolveBackoffOptions } from './backoff.js';
import type { ResolvedBackoffOptions } from './backoff.js';
import type { TokenSource } from './connection.js';
import type { Logger } from './logger.js';
import { silentLogger } from './logger.js';
import type { RequestHandler } from './team.js';
import { redactUrl } from './transport.js';
import type { TransportFactory, WebSocketConstructor } from './transport.js';
import { SDK_NAME, SDK_VERSION } from './version.js';

/** Options of {@link connect}. Only `url` and `token` are required. */
export interface ClientOptions {
  /**
   * The gateway endpoint(s), `ws(s)://host/v1/agents`. With several, each reconnect attempt goes
   * to the next one (round-robin), so one dead gateway costs one attempt, not an outage.
   */
  url: string | readonly string[];
  /**
   * The agent's bearer token, or a function returning the current one; a function is called
   * before every connection attempt, so a rotated token is picked up on the next reconnect.
   */
  token: TokenSource;
  /**
   * Name and version the client announces in `hello` (shown in the console).
   * @defaultValue `{ name: '@ahp/sdk', version: SDK_VERSION }`
   */
  client?: { name: string; version: string };
  /** Reconnect backoff; see {@link BackoffOptions} for each default. */
  reconnect?: BackoffOptions;
  /**
   * How long `hook()` waits for its decision, across reconnects, before rejecting with
   * `E_TIMEOUT`. Per call: `HookOptions.deadlineMs`.
   * @defaultValue 30_000
   */
  hookDeadlineMs?: number;
  /**
   * How long other requests (`respond()`) wait for their ack.
   * @defaultValue 30_000
   */
  requestDeadlineMs?: number;
  /**
   * How long `connect()` keeps trying (with backoff, over all URLs) before rejecting with
   * `E_TIMEOUT`. Refusals that retrying cannot fix (HTTP 401, a "stop" close code) reject at once.
   * @defaultValue 30_000
   */
  connectTimeoutMs?: number;
  /**
   * From opening a socket to the gateway's `welcome`; a slower attempt is dropped and retried.
   * @defaultValue 10_000
   */
  handshakeTimeoutMs?: number;
  /**
   * A connection silent for longer than this many heartbeats (`welcome.heartbeat_ms`) is
   * presumed dead and replaced. The gateway pings every heartbeat, so 2 tolerates one lost ping.
   * @defaultValue 2
   */
  livenessFactor?: number;
  /**
   * Largest frame accepted from the gateway, in UTF-8 bytes. A decision may carry many signals,
   * so this is well above the 1 MiB the gateway accepts from clients.
   * @defaultValue 16 MiB
   */
  maxFrameBytes?: number;
  /** @defaultValue a logger that drops everything */
  logger?: Logger;
  /**
   * A WHATWG-style `WebSocket` constructor to use (the token then travels as `?token=`).
   * @defaultValue `ws` under Node, the global `WebSocket` elsewhere
   */
  WebSocket?: WebSocketConstructor;
  /** A complete transport, for custom stacks. Wins over `WebSocket`. */
  transport?: TransportFactory;
  /** Aborting it before `connect()` settles closes the client and rejects with `E_CLOSED`. */
  signal?: AbortSignal;
  /**
   * How a shutdown request addressed to this agent is answered while no `onRequest('shutdown', …)`
   * handler is registered. `idle`: approve when no tool call runs (see {@link AhpClient.trackToolCall}),
   * else refuse with the reason. A function: that handler, from the first request on. `hold`: keep
   * the request until a handler is registered (it expires if none ever is).
   * @defaultValue `'idle'`
   */
  shutdownPolicy?: 'idle' | 'hold' | RequestHandler<'shutdown'>;
  /**
   * The agent id of this agent's team lead, where `submitPlan()` sends plans by default.
   * @defaultValue the lead the gateway's `welcome` names (`agent.lead`, from the tokens file) when
   * it is another agent; none otherwise: plans go to the operators
   */
  lead?: string;
}

const DEFAULTS = {
  hookDeadlineMs: 30_000,
  requestDeadlineMs: 30_000,
  connectTimeoutMs: 30_000,
  handshakeTimeoutMs: 10_000,
  livenessFactor: 2,
  maxFrameBytes: 16 * 1024 * 1024,
} as const;


/** `value` when it is a positive integer of milliseconds, `fallback` when it is undefined; else a `TypeError` naming the option. */
export function checkDuration(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`${name} must be a positive integer of milliseconds, got ${String(value)}`);
  return value;
}

/** The gateway URLs, checked (`ws:` or `wss:`, at least one) and frozen. */
export function checkUrls(url: string | readonly string[]): readonly string[] {
  const urls = typeof url === 'string' ? [url] : [...url];
  if (urls.length === 0) throw new TypeError('url: at least one gateway URL is required');
  for (const candidate of urls) {
    let parsed: URL;
    try {
      parsed = new URL(candidate);
    } catch {
      throw new TypeError(`url: not a valid URL: ${redactUrl(candidate)}`);
    }
    if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') {
      throw new TypeError(`url: must use ws: or wss:, got ${parsed.protocol} in ${redactUrl(candidate)}`);
    }
  }
  return Object.freeze(urls);
}

/** What `connect()` checks before it resolves a transport: the URLs, the token and its own timeout. */
export interface ConnectSettings {
  readonly urls: readonly string[];
  readonly connectTimeoutMs: number;
}

/** Checks the options `connect()` needs first; the rest are checked by {@link resolveClientSettings}. */
export function checkConnectOptions(options: ClientOptions): ConnectSettings {
  if (typeof options !== 'object' || options === null) throw new TypeError('connect() needs an options object');
  const urls = checkUrls(options.url);
  const token = options.token;
  if (!(typeof token === 'function' || (typeof token === 'string' && token !== ''))) {
    throw new TypeError('token: a non-empty string or a function returning one is required');
  }
  return { urls, connectTimeoutMs: checkDuration('connectTimeoutMs', options.connectTimeoutMs, DEFAULTS.connectTimeoutMs) };
}

/** Every other option, checked and with its default filled in. */
export interface ClientSettings {
  readonly logger: Logger;
  readonly hookDeadlineMs: number;
  readonly requestDeadlineMs: number;
  readonly lead: string | undefined;
  readonly client: { readonly name: string; readonly version: string };
  readonly backoff: ResolvedBackoffOptions;
  readonly handshakeTimeoutMs: number;
  readonly livenessFactor: number;
  readonly maxFrameBytes: number;
}

/** Checks the options not covered by {@link checkConnectOptions}, in the order they were always checked. */
export function resolveClientSettings(options: ClientOptions): ClientSettings {
  const hookDeadlineMs = checkDuration('hookDeadlineMs', options.hookDeadlineMs, DEFAULTS.hookDeadlineMs);
  const requestDeadlineMs = checkDuration('requestDeadlineMs', options.requestDeadlineMs, DEFAULTS.requestDeadlineMs);
  if (options.lead !== undefined && (typeof options.lead !== 'string' || options.lead === '')) throw new TypeError('lead: the lead agent id must be a non-empty string');
  const livenessFactor = options.livenessFactor ?? DEFAULTS.livenessFactor;
  if (!Number.isFinite(livenessFactor) || livenessFactor <= 0) throw new TypeError(`livenessFactor must be > 0, got ${livenessFactor}`);
  return {
    logger: options.logger ?? silentLogger,
    hookDeadlineMs,
    requestDeadlineMs,
    lead: options.lead,
    client: options.client ?? { name: SDK_NAME, version: SDK_VERSION },
    backoff: resolveBackoffOptions(options.reconnect),
    handshakeTimeoutMs: checkDuration('handshakeTimeoutMs', options.handshakeTimeoutMs, DEFAULTS.handshakeTimeoutMs),
    livenessFactor,
    maxFrameBytes: checkDuration('maxFrameBytes', options.maxFrameBytes, DEFAULTS.maxFrameBytes),
  };
}
