/**
 * Reads that back scrape-time gauges (queue counts, pending requests) go to Redis. A scrape storm
 * — several Prometheus servers, a dashboard refreshing every second, someone running `curl` in a
 * loop — must not turn into a Redis load, and a Redis that does not answer must not hang the
 * scrape. So each read is shared: one read at a time, its result (or failure) reused for `ttlMs`,
 * and abandoned after `timeoutMs`.
 */

/** Options of {@link cachedRead}. */
export interface CachedReadOptions<T> {
  read: () => Promise<T>;
  /** How long a settled read is reused, counted from when it started. */
  ttlMs: number;
  /** A read still pending after this long rejects (node-redis queues commands while offline). */
  timeoutMs: number;
  /** Called once per failed or timed-out read (not once per caller that shares it). */
  onFailure?: (error: unknown) => void;
  /** @defaultValue `Date.now` */
  now?: () => number;
}

/**
 * A function returning the shared read: the pending one, or the settled one while younger than
 * `ttlMs`, else a new one. A failed read is reused for `ttlMs` too, so a Redis outage costs one
 * attempt per period, not one per scrape.
 */
export function cachedRead<T>(options: CachedReadOptions<T>): () => Promise<T> {
  const now = options.now ?? Date.now;
  let current: { startedAt: number; settled: boolean; promise: Promise<T> } | undefined;
  return () => {
    if (current !== undefined && (!current.settled || now() - current.startedAt < options.ttlMs)) return current.promise;
    const entry = { startedAt: now(), settled: false, promise: withTimeout(options.read, options.timeoutMs) };
    entry.promise.then(
      () => {
        entry.settled = true;
      },
      (error: unknown) => {
        entry.settled = true;
        options.onFailure?.(error);
      },
    );
    current = entry;
    return entry.promise;
  };
}

function withTimeout<T>(read: () => Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
  });
  return Promise.race([Promise.resolve().then(read), timeout]).finally(() => clearTimeout(timer));
}
