import { createClient } from 'redis';

/** Where to connect, and how long to wait. Either a URL or a host and port. */
export type RedisConnectionOptions = (
  | { url: string; host?: never; port?: never }
  | { url?: never; /** @defaultValue `'127.0.0.1'` */ host?: string; port: number }
) & {
  /**
   * Gives up connecting after this long. Short by default: these connections are local checks.
   * @defaultValue `2000`
   */
  connectTimeoutMs?: number;
  /**
   * Closes the connection when nothing has come back for this long, rejecting the command that
   * waits for its reply (node-redis's own command timeout stops counting once a command is sent).
   * An idle connection counts too: `fn` must not pause longer than this between commands.
   * @defaultValue `10000`
   */
  idleTimeoutMs?: number;
};

function openClient(options: RedisConnectionOptions) {
  const socket = { connectTimeout: options.connectTimeoutMs ?? 2000, socketTimeout: options.idleTimeoutMs ?? 10_000, reconnectStrategy: false as const };
  return createClient({
    ...(options.url !== undefined ? { url: options.url, socket } : { socket: { ...socket, host: options.host ?? '127.0.0.1', port: options.port } }),
    // Nothing is sent on connect (no HELLO, no CLIENT SETINFO, no maintenance handshake): a
    // readiness probe must reach a server still loading its AOF, and RESP2 keeps the replies of
    // `sendCommand` plain strings and arrays.
    RESP: 2,
    disableClientInfo: true,
    maintNotifications: 'disabled',
  });
}

/** A node-redis connection to one server (never a cluster client: cluster commands go to the node itself). */
export type RedisConnection = ReturnType<typeof openClient>;

/**
 * Opens a node-redis connection that never reconnects, runs `fn`, and always drops it: the shape
 * of every short check here (readiness, ownership of a data dir, building a cluster, tests).
 *
 * @throws whatever connecting or `fn` throws (a refused port, a timeout, an error reply).
 */
export async function withRedisConnection<T>(options: RedisConnectionOptions, fn: (client: RedisConnection) => Promise<T>): Promise<T> {
  const client = openClient(options);
  // Failures reach the caller through the rejected connect or command; the event would only crash the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    client.destroy();
  }
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
