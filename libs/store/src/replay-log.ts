/**
 * The replay log: one entry per hook a worker evaluated, with what a replay of a candidate
 * configuration needs (docs/hooks.md, "Replay a candidate configuration") — the hook context the
 * oracles saw, redacted; the decision's level, rules and approval; agent, session, trigger and
 * configuration version.
 *
 * Guarantees:
 * - Best-effort and bounded: an append that fails is reported to the caller, who logs it; the
 *   decision is never held back or failed for it. Each append is one command (`XADD` with its
 *   count trim; an age trim on about one append in 16, and the bucket's `PEXPIRE` at most once an
 *   hour per writer), pipelined beside the decision's own writes: no script, since nothing here
 *   needs to be atomic.
 * - Redacted before it is stored, like every free text the control plane keeps
 *   (`redactFreeText`: secret-named fields and credentials inside strings; docs/signal-log.md,
 *   "Redaction"). A context larger than `maxContextBytes` once redacted is stored without it
 *   (a replay counts such a hook as skipped rather than evaluating part of its input).
 * - Retention by count and by age, applied as hooks are appended: about `maxEntries` entries in
 *   all (every append trims its bucket, `MAXLEN ~`) and none much older than `retentionMs` (about
 *   one append in 16 trims by age, `MINID ~` from the writer's clock; a bucket nobody appends to
 *   expires whole between `retentionMs` and `retentionMs` plus an hour after its last append).
 * - Cluster-safe: the log is {@link REPLAY_LOG_BUCKETS} streams, each in its own hash tag, the
 *   bucket chosen by hook id; an append touches one bucket, a read merges them by time.
 */
import { ReplayRecordSchema, redactFreeText, replayDecisionOf, type AgentIdentity, type HookDecision, type HookTrigger, type JsonObject, type ReplayRecord } from '@ahp/protocol';
import { shardIndexOf } from './hook-queue-shards.js';
import type { StoreKeys } from './keys.js';
import type { RedisClient } from './redis-client.js';

/**
 * Streams the log is spread over. Fixed: readers and writers of a deployment must agree on it,
 * and eight tags spread the appends over the masters of a small cluster.
 */
export const REPLAY_LOG_BUCKETS = 8;
/** Entries kept in all by default (each bucket keeps an eighth). */
export const DEFAULT_REPLAY_LOG_MAX_ENTRIES = 100_000;
/** Age after which entries are trimmed by default: 7 days. */
export const DEFAULT_REPLAY_LOG_RETENTION_MS = 7 * 24 * 3_600_000;
/** Largest redacted context kept by default, in bytes of JSON. */
export const DEFAULT_REPLAY_LOG_MAX_CONTEXT_BYTES = 16 * 1024;
/** Entries one read asks a bucket for at a time. */
const PAGE_SIZE = 200;
/** Stream ids come from Redis's clock, `at` from the worker's: reads take this much slack on each side and filter on `at`. */
const CLOCK_SLACK_MS = 5 * 60_000;

/** One append in this many also trims its bucket by age. */
const AGE_TRIM_EVERY = 16;
/** Longest time between two TTL refreshes of a bucket by one writer (shorter for short retentions: a sixteenth of it). */
const TTL_REFRESH_MAX_MS = 3_600_000;

/** One evaluated hook, as the worker hands it over. */
export interface ReplayLogAppend {
  readonly hookId: string;
  readonly trigger: HookTrigger;
  readonly agent: AgentIdentity;
  readonly sessionId: string;
  /** The context the oracles evaluated (as queued: secret-named fields already blanked). */
  readonly context: JsonObject;
  /** The oracles' decision, before any approval flow turned it into a wait or an answer. */
  readonly decision: HookDecision;
  readonly configVersion: number | undefined;
  /** Epoch ms of the evaluation. */
  readonly at: number;
}

/** What a read yields: a record, or an entry that does not parse (counted, never guessed at). */
export type ReplayLogItem = { readonly kind: 'record'; readonly record: ReplayRecord } | { readonly kind: 'unreadable'; readonly id: string; readonly at: number };

/** Options of {@link ReplayLog.read}. */
export interface ReadReplayLogOptions {
  /** Epoch ms, inclusive. */
  readonly sinceMs: number;
  /** Epoch ms, exclusive. */
  readonly untilMs: number;
  readonly agentId?: string;
  readonly trigger?: HookTrigger;
}

export interface ReplayLog {
  /** Appends one evaluated hook. Rejects when Redis does; the caller logs and goes on. */
  append(input: ReplayLogAppend): Promise<void>;
  /**
   * The records of the window, oldest first (by `at`), filtered by agent and trigger; a hook
   * recorded twice (a job evaluated again) is yielded once, the first time. Reads page by page:
   * a replay of 100 000 hooks never holds more than a few pages.
   */
  read(options: ReadReplayLogOptions): AsyncGenerator<ReplayLogItem>;
}

/** Options of {@link createReplayLog}. */
export interface ReplayLogOptions {
  readonly redis: RedisClient;
  readonly keys: StoreKeys;
  /** @defaultValue {@link DEFAULT_REPLAY_LOG_MAX_ENTRIES} */
  readonly maxEntries?: number;
  /** @defaultValue {@link DEFAULT_REPLAY_LOG_RETENTION_MS} */
  readonly retentionMs?: number;
  /** @defaultValue {@link DEFAULT_REPLAY_LOG_MAX_CONTEXT_BYTES} */
  readonly maxContextBytes?: number;
}

/** The record a hook is stored as: its context redacted, and dropped when over `maxContextBytes`. */
export function replayRecordOf(input: ReplayLogAppend, maxContextBytes: number): { record: ReplayRecord; json: string } {
  const context = redactFreeText(input.context);
  const contextJson = JSON.stringify(context);
  const bytes = Buffer.byteLength(contextJson, 'utf8');
  const record: ReplayRecord = {
    hook_id: input.hookId,
    trigger: input.trigger,
    agent: input.agent,
    session_id: input.sessionId,
    at: input.at,
    ...(input.configVersion === undefined ? {} : { config_version: input.configVersion }),
    decision: replayDecisionOf(input.decision),
    context_bytes: bytes,
  };
  // The context is spliced in as the JSON already made for measuring it, not stringified twice.
  const head = JSON.stringify(record);
  const json = bytes > maxContextBytes ? head : `${head.slice(0, -1)},"context":${contextJson}}`;
  return { record: bytes > maxContextBytes ? record : { ...record, context }, json };
}

/**
 * How far before a hook's `decided_at` {@link findReplayRecord} starts reading: the entry is
 * appended just after the decision, but its stream id is Redis's clock and `decided_at` the
 * worker's, which may be a little ahead.
 */
export const REPLAY_LOOKUP_BEFORE_MS = 1_000;
/** How far after `decided_at` it reads at most: an append queued behind a busy worker or Redis. */
export const REPLAY_LOOKUP_AFTER_MS = 10_000;
/** Most entries one lookup reads, whatever the traffic in the window (a page is 100). */
export const REPLAY_LOOKUP_MAX_ENTRIES = 2_000;
const LOOKUP_PAGE_SIZE = 100;

/**
 * The replay-log entry of one hook, found by time rather than by id (the log is ordered by time):
 * reads the hook's own bucket from `decidedAt - REPLAY_LOOKUP_BEFORE_MS` to `decidedAt +
 * REPLAY_LOOKUP_AFTER_MS`, a page of 100 at a time, and stops at the first entry of the hook;
 * only entries whose raw JSON names the hook are parsed. Undefined when there is none in the
 * window (log off or trimmed, the append failed or is still on its way) or it does not parse.
 * At the benchmark's 1,330 hooks/s a bucket takes about 170 entries a second: a lookup that finds
 * its entry reads two pages, one that does not the whole window (about 1,800 entries), never more
 * than {@link REPLAY_LOOKUP_MAX_ENTRIES} (tools/bench micro/drill-down-lookup-cost).
 */
export async function findReplayRecord(redis: RedisClient, keys: StoreKeys, hookId: string, decidedAt: number): Promise<ReplayRecord | undefined> {
  const key = keys.replayLog(shardIndexOf(hookId, REPLAY_LOG_BUCKETS));
  const end = `${Math.max(0, decidedAt + REPLAY_LOOKUP_AFTER_MS)}-18446744073709551615`;
  let start = `${Math.max(0, decidedAt - REPLAY_LOOKUP_BEFORE_MS)}-0`;
  for (let read = 0; read < REPLAY_LOOKUP_MAX_ENTRIES; ) {
    const page = (await redis.xRange(key, start, end, { COUNT: LOOKUP_PAGE_SIZE })) ?? [];
    read += page.length;
    for (const entry of page) {
      const raw = entry.message['r'];
      if (raw === undefined || !raw.includes(hookId)) continue;
      try {
        const parsed = ReplayRecordSchema.safeParse(JSON.parse(raw));
        if (parsed.success && parsed.data.hook_id === hookId) return parsed.data;
      } catch {
        // Not JSON: not this hook's entry, as far as anyone can tell.
      }
    }
    const last = page.at(-1);
    if (last === undefined || page.length < LOOKUP_PAGE_SIZE) return undefined;
    start = `(${last.id}`;
  }
  return undefined;
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/** `<ms>-<seq>` → ms. */
function idMs(id: string): number {
  return Number(id.slice(0, id.indexOf('-')));
}

export function createReplayLog(options: ReplayLogOptions): ReplayLog {
  const { redis, keys } = options;
  const perBucket = Math.ceil(positive('maxEntries', options.maxEntries ?? DEFAULT_REPLAY_LOG_MAX_ENTRIES) / REPLAY_LOG_BUCKETS);
  const retentionMs = positive('retentionMs', options.retentionMs ?? DEFAULT_REPLAY_LOG_RETENTION_MS);
  const maxContextBytes = positive('maxContextBytes', options.maxContextBytes ?? DEFAULT_REPLAY_LOG_MAX_CONTEXT_BYTES);
  // A bucket's TTL is pushed by this writer at most once per ttlRefreshMs, and that much beyond the
  // retention, so every append of this writer is covered by a refresh it made at most ttlRefreshMs
  // earlier: the bucket outlives its last append by at least the retention.
  const ttlRefreshMs = Math.min(Math.ceil(retentionMs / 16), TTL_REFRESH_MAX_MS);
  const ttlRefreshedAt: (number | undefined)[] = [];

  /** One bucket's entries of the stream-id range, a page at a time, parsed. */
  async function* bucketItems(bucket: number, startMs: number, endMs: number): AsyncGenerator<ReplayLogItem & { sortAt: number }> {
    const key = keys.replayLog(bucket);
    let start = `${Math.max(0, startMs)}-0`;
    for (;;) {
      const page = (await redis.xRange(key, start, `${endMs}-18446744073709551615`, { COUNT: PAGE_SIZE })) ?? [];
      for (const entry of page) {
        const raw = entry.message['r'];
        let parsed: ReturnType<typeof ReplayRecordSchema.safeParse> | undefined;
        try {
          parsed = raw === undefined ? undefined : ReplayRecordSchema.safeParse(JSON.parse(raw));
        } catch {
          parsed = undefined;
        }
        if (parsed?.success === true) yield { kind: 'record', record: parsed.data, sortAt: parsed.data.at };
        else yield { kind: 'unreadable', id: entry.id, at: idMs(entry.id), sortAt: idMs(entry.id) };
      }
      const last = page.at(-1);
      if (last === undefined || page.length < PAGE_SIZE) return;
      start = `(${last.id}`;
    }
  }

  return {
    async append(input) {
      const { json } = replayRecordOf(input, maxContextBytes);
      const bucket = shardIndexOf(input.hookId, REPLAY_LOG_BUCKETS);
      const key = keys.replayLog(bucket);
      // Issued in one tick: node-redis writes them together (one round trip, same node under Cluster).
      const writes: Promise<unknown>[] = [redis.xAdd(key, '*', { r: json }, { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: perBucket } })];
      const now = Date.now();
      if (now - (ttlRefreshedAt[bucket] ?? -Infinity) >= ttlRefreshMs) {
        ttlRefreshedAt[bucket] = now;
        writes.push(
          redis.pExpire(key, retentionMs + ttlRefreshMs).catch((error: unknown) => {
            ttlRefreshedAt[bucket] = undefined;
            throw error;
          }),
        );
      }
      // The writer's clock against a retention of days: seconds of skew do not matter.
      if (Math.random() * AGE_TRIM_EVERY < 1) writes.push(redis.xTrim(key, 'MINID', Math.max(0, Date.now() - retentionMs), { strategyModifier: '~' }));
      await Promise.all(writes);
    },

    async *read(read) {
      const heads: { iterator: AsyncGenerator<ReplayLogItem & { sortAt: number }>; item: (ReplayLogItem & { sortAt: number }) | undefined }[] = [];
      for (let bucket = 0; bucket < REPLAY_LOG_BUCKETS; bucket += 1) {
        const iterator = bucketItems(bucket, read.sinceMs - CLOCK_SLACK_MS, read.untilMs + CLOCK_SLACK_MS);
        heads.push({ iterator, item: (await iterator.next()).value ?? undefined });
      }
      const seen = new Set<string>();
      for (;;) {
        // Eight heads: a linear scan for the oldest is as fast as a heap and simpler.
        let oldest: (typeof heads)[number] | undefined;
        for (const head of heads) {
          if (head.item !== undefined && (oldest?.item === undefined || head.item.sortAt < oldest.item.sortAt)) oldest = head;
        }
        if (oldest?.item === undefined) return;
        const { item } = oldest;
        oldest.item = (await oldest.iterator.next()).value ?? undefined;
        if (item.sortAt < read.sinceMs || item.sortAt >= read.untilMs) continue;
        if (item.kind === 'unreadable') {
          yield { kind: 'unreadable', id: item.id, at: item.at };
          continue;
        }
        const { record } = item;
        if (read.agentId !== undefined && record.agent.id !== read.agentId) continue;
        if (read.trigger !== undefined && record.trigger !== read.trigger) continue;
        if (seen.has(record.hook_id)) continue;
        seen.add(record.hook_id);
        yield { kind: 'record', record };
      }
    },
  };
}
