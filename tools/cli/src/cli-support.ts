/**
 * What every `ahp` command shares: where it writes, its exit codes and errors, the global
 * options, the Redis connection, and text formatting.
 */
import { CliError, EXIT, usageError, wholeNumber, type CliIo } from './cli-errors.js';
import { connectRedis, createKeys, DEFAULT_KEY_PREFIX, parseClusterNodes, type Logger, type RedisClient, type StoreKeys } from '@ahp/store';

export { CliError, EXIT, invalidInput, usageError, wholeNumber, type CliIo } from './cli-errors.js';

/** The parsed global options. */
export interface GlobalValues {
  'redis-url'?: string | undefined;
  'redis-cluster-nodes'?: string | undefined;
  prefix?: string | undefined;
  'connect-timeout'?: string | undefined;
  json?: boolean | undefined;
}

/** `redis://user:secret@host` → `redis://user:***@host`, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/** A connection to the deployment's Redis and its keys. */
export interface Deployment {
  redis: RedisClient;
  keys: StoreKeys;
  close(): Promise<void>;
}

/**
 * Connects to Redis from `--redis-url` or REDIS_URL (or a cluster from `--redis-cluster-nodes` or
 * REDIS_CLUSTER_NODES), failing with exit code 3 when it cannot
 * within `--connect-timeout` (the store's client otherwise retries for ever), and with exit code 2
 * when neither names a Redis.
 */
export async function connectDeployment(values: GlobalValues, io: CliIo): Promise<Deployment> {
  const nodes = (values['redis-cluster-nodes'] ?? io.env['REDIS_CLUSTER_NODES'] ?? '').trim();
  const rawUrl = (values['redis-url'] ?? io.env['REDIS_URL'] ?? '').trim();
  if (rawUrl === '' && nodes === '') {
    throw usageError('no Redis to talk to: pass --redis-url redis://host:port (or --redis-cluster-nodes host:port,…), or set REDIS_URL (or REDIS_CLUSTER_NODES)');
  }
  const url = rawUrl === '' ? undefined : rawUrl;
  if (url !== undefined) {
    let parsedUrl: URL;
    try {
      parsedUrl = new URL(url);
    } catch {
      throw usageError(`--redis-url / REDIS_URL is not a URL: ${redactUrl(url)}`);
    }
    if (parsedUrl.protocol !== 'redis:' && parsedUrl.protocol !== 'rediss:') throw usageError(`--redis-url / REDIS_URL must be a redis:// or rediss:// URL`);
  }
  if (nodes !== '') {
    try {
      parseClusterNodes(nodes);
    } catch (error) {
      throw usageError(`--redis-cluster-nodes / ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const where = nodes === '' ? redactUrl(url ?? '') : `the cluster ${nodes}`;
  const timeoutMs = wholeNumber('--connect-timeout', values['connect-timeout'] ?? '5000', 1);
  let keys: StoreKeys;
  try {
    keys = createKeys({ prefix: values.prefix ?? io.env['AHP_KEY_PREFIX'] ?? DEFAULT_KEY_PREFIX });
  } catch (error) {
    throw usageError(`--prefix / AHP_KEY_PREFIX: ${error instanceof Error ? error.message : String(error)}`);
  }

  let lastError = 'no answer';
  const logger: Logger = {
    debug() {},
    info() {},
    warn: (fields) => {
      if (typeof fields['error'] === 'string') lastError = fields['error'];
    },
    error() {},
  };
  let timer: NodeJS.Timeout | undefined;
  const connecting = connectRedis({
    ...(url === undefined ? {} : { url }),
    ...(nodes === '' ? {} : { clusterNodes: nodes }),
    name: 'ahp-cli',
    logger,
    connectTimeoutMs: timeoutMs,
    maxReconnectDelayMs: 500,
  });
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CliError(EXIT.redis, `cannot reach Redis at ${where} within ${timeoutMs} ms: ${lastError}`)), timeoutMs);
  });
  let redis: RedisClient;
  try {
    redis = await Promise.race([connecting, timeout]);
  } catch (error) {
    // The client keeps retrying in the background; stop it.
    void connecting.then((client) => client.destroy(), () => undefined);
    if (error instanceof CliError) throw error;
    throw new CliError(EXIT.redis, `cannot reach Redis at ${where}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    clearTimeout(timer);
  }
  return {
    redis,
    keys,
    close: async () => {
      try {
        await redis.close();
      } catch {
        redis.destroy();
      }
    },
  };
}

/** Rows as left-aligned columns separated by two spaces; the first row is the header. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd()).join('\n');
}

/** `0.753` → `75%`. */
export function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/** A JSON value on stdout, indented for people (`jq` reads it as well). */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
