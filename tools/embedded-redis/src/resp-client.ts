import net from 'node:net';
import { encodeCommand, RespError, RespParser, type RespArgument, type RespValue } from './resp.js';

/** Where and how to connect. */
export interface RespClientOptions {
  /** @defaultValue `'127.0.0.1'` */
  host?: string;
  port: number;
  /**
   * Gives up connecting after this long. Short by default: this client is for local checks.
   * @defaultValue `2000`
   */
  connectTimeoutMs?: number;
  /**
   * Rejects a command whose reply has not arrived after this long and closes the connection.
   * @defaultValue `10000`
   */
  commandTimeoutMs?: number;
}

/** The connection closed (or failed) while commands were waiting for replies. */
export class RespConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RespConnectionError';
  }
}

interface Pending {
  resolve: (value: RespValue) => void;
  reject: (error: Error) => void;
}

/**
 * A minimal Redis connection over `node:net`: sends commands, pipelines them, and matches
 * replies in order. No pub/sub, no RESP3, no reconnect: it is meant for short local checks
 * (readiness, ownership of a data dir, tests) where a full client would be a dependency too many.
 */
export class RespClient {
  private readonly parser = new RespParser();
  private readonly queue: Pending[] = [];
  private closedError: Error | undefined;
  private readonly closed: Promise<void>;

  private constructor(
    private readonly socket: net.Socket,
    private readonly commandTimeoutMs: number,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error) => this.fail(new RespConnectionError(`redis connection error: ${error.message}`, { cause: error })));
    this.closed = new Promise((resolve) => {
      socket.on('close', () => {
        this.fail(new RespConnectionError('redis connection closed'));
        resolve();
      });
    });
  }

  /**
   * Opens a connection.
   * @throws RespConnectionError when the port refuses, or nothing answers within the timeout.
   */
  static connect(options: RespClientOptions): Promise<RespClient> {
    const host = options.host ?? '127.0.0.1';
    const timeoutMs = options.connectTimeoutMs ?? 2000;
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port: options.port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new RespConnectionError(`connecting to ${host}:${options.port} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(new RespConnectionError(`cannot connect to ${host}:${options.port}: ${error.message}`, { cause: error }));
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new RespClient(socket, options.commandTimeoutMs ?? 10_000));
      });
    });
  }

  /**
   * Connects to a `redis://[user:password@]host:port[/db]` URL, authenticating and selecting
   * the database when the URL says so. `rediss://` (TLS) is not supported.
   */
  static async fromUrl(url: string, options: Omit<RespClientOptions, 'host' | 'port'> = {}): Promise<RespClient> {
    const target = parseRedisUrl(url);
    const client = await RespClient.connect({ ...options, host: target.host, port: target.port });
    try {
      if (target.password !== undefined) {
        await client.command(...(target.username ? ['AUTH', target.username, target.password] : ['AUTH', target.password]));
      }
      if (target.db !== 0) await client.command('SELECT', target.db);
    } catch (error) {
      client.destroy();
      throw error;
    }
    return client;
  }

  /**
   * Sends one command and resolves with its reply. Commands may be issued without awaiting
   * the previous one; replies are matched in order.
   * @throws RespError for an error reply, RespConnectionError when the connection goes away.
   */
  command(...args: RespArgument[]): Promise<RespValue> {
    if (this.closedError) return Promise.reject(this.closedError);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fail(new RespConnectionError(`no reply to ${String(args[0])} within ${this.commandTimeoutMs} ms`));
      }, this.commandTimeoutMs);
      this.queue.push({
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.socket.write(encodeCommand(args));
    });
  }

  /** Sends `QUIT` when still connected and waits for the socket to close. Never throws. */
  async close(): Promise<void> {
    if (!this.closedError) {
      try {
        await this.command('QUIT');
      } catch {
        // The server may close before replying; either way we are done.
      }
      this.socket.end();
    }
    await this.closed;
  }

  /** Drops the connection at once, rejecting anything still waiting. */
  destroy(): void {
    this.fail(new RespConnectionError('redis connection destroyed'));
  }

  private onData(chunk: Buffer): void {
    let values: RespValue[];
    try {
      values = this.parser.push(chunk);
    } catch (error) {
      this.fail(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    for (const value of values) {
      const waiter = this.queue.shift();
      if (!waiter) {
        this.fail(new RespConnectionError('redis sent a reply nobody asked for'));
        return;
      }
      if (value instanceof RespError) waiter.reject(value);
      else waiter.resolve(value);
    }
  }

  private fail(error: Error): void {
    if (!this.closedError) this.closedError = error;
    for (const waiter of this.queue.splice(0)) waiter.reject(error);
    this.socket.destroy();
  }
}

/** The parts of a Redis URL that this client understands. */
export interface RedisUrlParts {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db: number;
}

/**
 * Parses `redis://[user:password@]host[:port][/db]`.
 * @throws TypeError for another scheme or a malformed URL.
 */
export function parseRedisUrl(url: string): RedisUrlParts {
  const parsed = new URL(url);
  if (parsed.protocol !== 'redis:') throw new TypeError(`unsupported Redis URL scheme: ${parsed.protocol}`);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1';
  const port = parsed.port === '' ? 6379 : Number(parsed.port);
  const dbText = parsed.pathname.replace(/^\//, '');
  const db = dbText === '' ? 0 : Number(dbText);
  if (!Number.isInteger(db) || db < 0) throw new TypeError(`invalid Redis database in URL: ${dbText}`);
  const parts: RedisUrlParts = { host, port, db };
  if (parsed.username) parts.username = decodeURIComponent(parsed.username);
  if (parsed.password) parts.password = decodeURIComponent(parsed.password);
  return parts;
}

/** The URL with its password replaced by `***`, safe to print. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparsable REDIS_URL>';
  }
}

/**
 * Opens a connection, runs `fn`, and always closes it: the shape every short check takes.
 */
export async function withRespClient<T>(options: RespClientOptions, fn: (client: RespClient) => Promise<T>): Promise<T> {
  const client = await RespClient.connect(options);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}
