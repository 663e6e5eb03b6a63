/**
 * Exporting the signal log: each signal entry joined with the response entry that answers it,
 * one {@link SignalLogLine} per signal (docs/spec/signal-log.md#signal-log-lines), filtered, and statistics over the same
 * lines. The store functions the operator API and `ahp log export|stats` call.
 *
 * Retention is the stream's: about `signalLogMaxLen` entries (default 100 000, signals and
 * responses together), trimmed on every append. A signal whose entry was trimmed is not exported;
 * a signal whose response entry was trimmed is exported as unanswered. See docs/signal-log.md.
 */
import {
  SignalLogFilterSchema,
  signalLogStats,
  type ConsumptionAction,
  type SignalLogFilter,
  type SignalLogLine,
  type SignalLogStats,
} from '@ahp/protocol';
import { StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import type { RedisClient } from './redis-client.js';
import { signalLogRecordFromFields, type SignalLogRecord } from './signal-log.js';
import { describeIssues } from './validate.js';

/** Default of {@link ExportSignalLogOptions.pageSize}. */
export const DEFAULT_EXPORT_PAGE_SIZE = 1_000;
/** Default of {@link ExportSignalLogOptions.clockSkewMs}: 5 minutes. */
export const DEFAULT_EXPORT_CLOCK_SKEW_MS = 5 * 60_000;

/** Options of {@link exportSignalLog} and {@link readSignalLogStats}. */
export interface ExportSignalLogOptions {
  /** Which signals; all of them when omitted. Validated with the protocol's `SignalLogFilterSchema`. */
  filter?: SignalLogFilter;
  /**
   * At most this many lines (the oldest matching signals).
   * @defaultValue no limit (the log itself is bounded by its retention)
   */
  limit?: number;
  /**
   * Stream entries read per round trip.
   * @defaultValue {@link DEFAULT_EXPORT_PAGE_SIZE} (1000)
   */
  pageSize?: number;
  /**
   * How far a worker's clock (which stamps `timestamp`) may be from Redis's (which stamps the
   * stream ids): the time filter reads this much more of the stream on each side and then
   * filters on `timestamp` exactly. `Infinity` reads the whole log whatever the filter.
   * @defaultValue {@link DEFAULT_EXPORT_CLOCK_SKEW_MS} (5 min)
   */
  clockSkewMs?: number;
  /**
   * Keeps only the signals of agents this says yes to, on top of `filter` and before `limit`
   * counts: how the operator API narrows the log to a scoped token's teams. Not part of the
   * filter, so statistics still report the filter as asked.
   * @defaultValue every agent
   */
  agentAllowed?: (agentId: string) => boolean;
  /**
   * Called after each page with the entries read so far and the id of the last one (its time is
   * how far the pass has come): what a caller needs to show progress on a long export.
   */
  onPage?: (progress: { scanned: number; lastId: string }) => void;
}

/** What {@link exportSignalLog} returns. */
export interface SignalLogExport {
  /** Oldest signal first. */
  lines: SignalLogLine[];
  /** Stream entries read. */
  scanned: number;
  /** Entries that did not parse (corrupt or foreign) and were left out. */
  skipped: number;
  /** True when `limit` cut the export short. */
  truncated: boolean;
}

interface Pending {
  record: SignalLogRecord;
  action?: ConsumptionAction;
  respondedAt?: string;
  /** The response was inferred (a client that cannot report answers). */
  inferred?: boolean;
}

function parseTime(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new StoreInputError(`${name} is not a timestamp: ${value}`);
  return ms;
}

function checkedFilter(filter: SignalLogFilter | undefined): SignalLogFilter {
  const parsed = SignalLogFilterSchema.safeParse(filter ?? {});
  if (!parsed.success) throw new StoreInputError(`invalid signal log filter: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}

function matches(record: SignalLogRecord, filter: SignalLogFilter, sinceMs: number | undefined, untilMs: number | undefined): boolean {
  const { entry } = record;
  if (filter.agent_id !== undefined && record.agentId !== filter.agent_id) return false;
  if (filter.session_id !== undefined && record.sessionId !== filter.session_id) return false;
  if (filter.hook !== undefined && entry.hook !== filter.hook) return false;
  if (filter.intensity !== undefined && entry.intensity !== filter.intensity) return false;
  if (filter.source !== undefined && entry.source !== filter.source) return false;
  if (sinceMs !== undefined || untilMs !== undefined) {
    const at = Date.parse(entry.timestamp);
    if (sinceMs !== undefined && at < sinceMs) return false;
    if (untilMs !== undefined && at >= untilMs) return false;
  }
  return true;
}

/** The exported line of a signal, fields in the documented order (the six of docs/spec/signal-log.md#signal-log-lines first). */
function toLine(pending: Pending): SignalLogLine {
  const { record, action, respondedAt } = pending;
  // A client that cannot report answers: inferred when an answer was read from what it did next,
  // not_reported while none was (see SignalAnswerOrigin).
  const answer = action !== undefined ? (pending.inferred === true ? 'inferred' : undefined) : record.answer === 'not_reported' ? 'not_reported' : undefined;
  const { entry } = record;
  return {
    timestamp: entry.timestamp,
    ...(entry.hook === undefined ? {} : { hook: entry.hook }),
    intensity: entry.intensity,
    source: entry.source,
    consumed: action !== undefined,
    ...(action === undefined ? {} : { action }),
    signal_id: entry.signal_id ?? '',
    type: entry.type ?? entry.hook ?? 'operator-signal',
    ...(record.rule === undefined ? {} : { rule: record.rule }),
    ...(record.configVersion === undefined ? {} : { config_version: record.configVersion }),
    agent_id: record.agentId,
    ...(record.sessionId === '' ? {} : { session_id: record.sessionId }),
    correlation_id: entry.hook_id ?? entry.signal_id ?? '',
    ...(record.latencyMs === undefined ? {} : { latency_ms: record.latencyMs }),
    ...(record.stages === undefined ? {} : { stages: record.stages }),
    ...(respondedAt === undefined ? {} : { responded_at: respondedAt }),
    ...(answer === undefined ? {} : { answer }),
    ...(record.subject === undefined ? {} : { subject: record.subject }),
  };
}

/**
 * Reads the signal log and joins every signal that matches `filter` with its response.
 *
 * One pass over the stream from `since` (less the clock skew): signal entries that match are
 * kept in order, response entries complete the signal they answer. Past `until` (plus the skew)
 * no new signal is taken, and the pass ends as soon as every kept signal has its response, or at
 * the end of the stream. Entries that do not parse are counted in `skipped`, never fatal: an
 * export must not fail on one foreign entry.
 *
 * @throws StoreInputError for an invalid filter or option.
 */
export async function exportSignalLog(redis: RedisClient, keys: StoreKeys, options: ExportSignalLogOptions = {}): Promise<SignalLogExport> {
  const filter = checkedFilter(options.filter);
  const pageSize = options.pageSize ?? DEFAULT_EXPORT_PAGE_SIZE;
  const skew = options.clockSkewMs ?? DEFAULT_EXPORT_CLOCK_SKEW_MS;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  if (!Number.isSafeInteger(pageSize) || pageSize <= 0) throw new StoreInputError(`pageSize must be a positive integer, got ${pageSize}`);
  if (Number.isNaN(skew) || skew < 0) throw new StoreInputError(`clockSkewMs must be a non-negative number (Infinity reads the whole log), got ${skew}`);
  if (limit !== Number.POSITIVE_INFINITY && (!Number.isSafeInteger(limit) || limit <= 0)) {
    throw new StoreInputError(`limit must be a positive integer, got ${limit}`);
  }
  const sinceMs = parseTime('since', filter.since);
  const untilMs = parseTime('until', filter.until);

  const kept: Pending[] = [];
  const waiting = new Map<string, Pending>();
  const seen = new Set<string>();
  let scanned = 0;
  let skipped = 0;
  let truncated = false;
  let takingSignals = true;
  let start = sinceMs === undefined ? '-' : `${Math.max(0, Math.floor(sinceMs - skew))}-0`;

  for (;;) {
    const page = (await redis.xRange(keys.signalLog, start, '+', { COUNT: pageSize })) ?? [];
    for (const item of page) {
      scanned += 1;
      const idMs = Number(item.id.split('-')[0]);
      if (untilMs !== undefined && idMs > untilMs + skew) takingSignals = false;
      let record: SignalLogRecord;
      try {
        record = signalLogRecordFromFields(item.id, item.message as Record<string, string>, keys.signalLog);
      } catch {
        skipped += 1;
        continue;
      }
      const signalId = record.entry.signal_id;
      if (signalId === undefined) {
        skipped += 1;
        continue;
      }
      if (record.kind === 'response') {
        const pending = waiting.get(signalId);
        if (pending !== undefined && record.entry.action !== undefined) {
          pending.action = record.entry.action;
          pending.respondedAt = record.entry.timestamp;
          if (record.answer === 'inferred') pending.inferred = true;
          waiting.delete(signalId);
        }
        continue;
      }
      if (!takingSignals || seen.has(signalId) || !matches(record, filter, sinceMs, untilMs)) continue;
      if (options.agentAllowed !== undefined && !options.agentAllowed(record.agentId)) continue;
      if (kept.length >= limit) {
        truncated = true;
        takingSignals = false;
        continue;
      }
      const pending: Pending = { record };
      kept.push(pending);
      seen.add(signalId);
      waiting.set(signalId, pending);
    }
    const lastId = page[page.length - 1]?.id;
    if (lastId !== undefined) options.onPage?.({ scanned, lastId });
    if (lastId === undefined || page.length < pageSize || (!takingSignals && waiting.size === 0)) break;
    start = `(${lastId}`;
  }
  return { lines: kept.map(toLine), scanned, skipped, truncated };
}

/** Lines as JSONL: one JSON object per line, each ending in a newline. */
export function toJsonl(lines: Iterable<SignalLogLine>): string {
  let text = '';
  for (const line of lines) text += `${JSON.stringify(line)}\n`;
  return text;
}

/**
 * Statistics per hook, oracle, intensity, action, rule and configuration version over the
 * signals that match `filter` (see the protocol's `signalLogStats`).
 */
export async function readSignalLogStats(redis: RedisClient, keys: StoreKeys, options: ExportSignalLogOptions = {}): Promise<SignalLogStats> {
  const filter = checkedFilter(options.filter);
  const exported = await exportSignalLog(redis, keys, { ...options, filter });
  return signalLogStats(exported.lines, filter);
}
