/**
 * Reading the signal log: a Redis stream with one entry per signal sent (`kind: signal`) and one
 * per response recorded (`kind: response`), written by decide-hook and respond-signal.
 *
 * Retention: the stream is trimmed on every append to about `signalLogMaxLen` entries
 * (`XADD MAXLEN ~`, default 100 000): a count, not an age, because trimming by count costs
 * nothing on append and bounds memory whatever the traffic. Export it elsewhere (JSONL, a
 * database) to keep more.
 */
import { SignalLogEntrySchema, parseSignalSubject, type SignalAnswerOrigin, type SignalLogEntry, type SignalSubject } from '@ahp/protocol';
import { StoreDataError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { parseStored } from './lua.js';
import type { RedisClient } from './redis-client.js';

/** One signal log entry with the stream id and the ids the protocol's entry does not carry. */
export interface SignalLogRecord {
  /** Stream entry id (`<ms>-<seq>`); pass it as `after` to read on. */
  id: string;
  kind: 'signal' | 'response';
  agentId: string;
  sessionId: string;
  entry: SignalLogEntry;
  /** The rule that fired (signal entries, when the oracle names one). */
  rule?: string;
  /** The hooks configuration version of the decision (signal entries; absent for built-in defaults). */
  configVersion?: number;
  /** Time from the hook's arrival at the gateway to its decision (signal entries). */
  latencyMs?: number;
  /** That time per stage: gateway, queue wait, worker (signal entries written by a worker that reports them). */
  stages?: { gateway_ms: number; queue_ms: number; worker_ms: number };
  /** `not_reported` on a signal entry, `inferred` on a response entry: a client that cannot report answers (see SignalAnswerOrigin). */
  answer?: SignalAnswerOrigin;
  /** What the signal acted on (signal entries; see SignalSubjectSchema); absent when none was recorded or it did not parse. */
  subject?: SignalSubject;
}

/** Options of {@link readSignalLog}. */
export interface ReadSignalLogOptions {
  /**
   * Read entries after this stream id (exclusive).
   * @defaultValue the beginning of the log
   */
  after?: string;
  /**
   * At most this many entries.
   * @defaultValue `100`
   */
  count?: number;
}

/** The protocol entry and the extra ids in one stream entry's fields. */
export function signalLogRecordFromFields(id: string, fields: Record<string, string>, key: string): SignalLogRecord {
  const kind = fields['kind'];
  if (kind !== 'signal' && kind !== 'response') throw new StoreDataError(key, `entry ${id} has kind ${String(kind)}`, { field: 'kind' });
  const action = fields['action'];
  const entry = parseStored(
    SignalLogEntrySchema,
    {
      timestamp: fields['timestamp'],
      // '' (or absent): a signal an operator pushed outside any hook.
      ...(fields['hook'] === undefined || fields['hook'] === '' ? {} : { hook: fields['hook'] }),
      intensity: fields['intensity'],
      source: fields['source'],
      consumed: fields['consumed'] === '1',
      ...(action === undefined ? {} : { action }),
      signal_id: fields['signal_id'],
      ...(fields['hook_id'] === undefined || fields['hook_id'] === '' ? {} : { hook_id: fields['hook_id'] }),
      type: fields['type'],
    },
    key,
    id,
  );
  const record: SignalLogRecord = { id, kind, agentId: fields['agent_id'] ?? '', sessionId: fields['session_id'] ?? '', entry };
  const rule = fields['rule'];
  if (rule !== undefined && rule !== '') record.rule = rule;
  const configVersion = wholeNumber(fields['config_version']);
  if (configVersion !== undefined && configVersion > 0) record.configVersion = configVersion;
  const latencyMs = wholeNumber(fields['latency_ms']);
  if (latencyMs !== undefined) record.latencyMs = latencyMs;
  const [gateway, queue, worker] = [wholeNumber(fields['gateway_ms']), wholeNumber(fields['queue_ms']), wholeNumber(fields['worker_ms'])];
  if (gateway !== undefined && queue !== undefined && worker !== undefined) record.stages = { gateway_ms: gateway, queue_ms: queue, worker_ms: worker };
  const answer = fields['answer'];
  if ((kind === 'signal' && answer === 'not_reported') || (kind === 'response' && answer === 'inferred')) record.answer = answer;
  // A subject that does not parse is left out, not fatal: the entry says enough without it.
  const subject = kind === 'signal' ? parseSignalSubject(fields['subject']) : undefined;
  if (subject !== undefined) record.subject = subject;
  return record;
}

function wholeNumber(raw: string | undefined): number | undefined {
  if (raw === undefined || !/^\d{1,15}$/.test(raw)) return undefined;
  return Number(raw);
}

/**
 * Reads the signal log in order, oldest first.
 * @throws StoreDataError for an entry that does not parse (the message names its stream id).
 */
export async function readSignalLog(redis: RedisClient, keys: StoreKeys, options: ReadSignalLogOptions = {}): Promise<SignalLogRecord[]> {
  const start = options.after === undefined ? '-' : `(${options.after}`;
  const entries = await redis.xRange(keys.signalLog, start, '+', { COUNT: options.count ?? 100 });
  return (entries ?? []).map((entry) => signalLogRecordFromFields(entry.id, entry.message as Record<string, string>, keys.signalLog));
}
