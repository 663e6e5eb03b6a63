/**
 * Reading the request audit stream (`<prefix>:requests:events`): one entry per request change
 * (`created`, `approved`, `rejected`, `expired`, `cancelled`, written by cas-request in the same
 * script as the change), per refused answer (`refused`, written by record-refusal) and per agent
 * permission prompt that stopped waiting for a tool approval (`prompt_fallback`, record-refusal too). The ops
 * console tails it; every gateway sees every change through it, whoever made it.
 *
 * Retention: trimmed on every append to about `requestEventsMaxLen` entries (`XADD MAXLEN ~`,
 * default 100 000), a count rather than an age, like the signal log. The per-request history
 * (`RequestStore.get`) is the durable trail of one request for as long as the request is kept.
 */
import {
  ProtocolStateSchema,
  RequestActorSchema,
  RequestIdSchema,
  RequestStatusSchema,
  RequestTypeSchema,
  TimestampSchema,
  type ProtocolState,
  type RequestActor,
  type RequestStatus,
  type RequestType,
} from '@ahp/protocol';
import { StoreDataError, StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { parseStored, parseStoredJson } from './lua.js';
import type { RedisClient } from './redis-client.js';

/** Events of the audit stream. */
export const REQUEST_EVENTS = ['created', 'approved', 'rejected', 'expired', 'cancelled', 'refused', 'prompt_fallback'] as const;
export type RequestEvent = (typeof REQUEST_EVENTS)[number];

/** One audit stream entry. */
export interface RequestEventRecord {
  /** Stream entry id (`<ms>-<seq>`); pass it as `after` to read on. */
  id: string;
  event: RequestEvent;
  requestId: string;
  type: RequestType;
  /** The status after the change; for `refused`, the status that stood. */
  status: RequestStatus;
  at: string;
  actor: RequestActor;
  /** The state after the change and its revision; absent on `refused` and `prompt_fallback`, which change nothing. */
  state?: ProtocolState;
  rev?: number;
  /** `refused`: why the answer was refused; `prompt_fallback`: what the agent's prompt answered instead. */
  feedback?: string;
}

/** Options of {@link readRequestEvents}. */
export interface ReadRequestEventsOptions {
  /**
   * Read entries after this stream id (exclusive).
   * @defaultValue the beginning of the stream
   */
  after?: string;
  /**
   * At most this many entries.
   * @defaultValue `100`
   */
  count?: number;
}

/** Whether `value` is a {@link RequestActor} with a valid id. */
export function isRequestActor(value: unknown): value is RequestActor {
  return RequestActorSchema.safeParse(value).success;
}

/** Parses one entry's fields; `key` and `id` name it in a StoreDataError. */
export function requestEventFromFields(id: string, fields: Record<string, string>, key: string): RequestEventRecord {
  const fail = (field: string, what: string) => new StoreDataError(key, `entry ${id}: ${what}`, { field });
  const event = fields['event'];
  if (!REQUEST_EVENTS.includes(event as RequestEvent)) throw fail('event', `unknown event ${JSON.stringify(event)}`);
  const actor = parseStoredJson(fields['actor'] ?? '', key, 'actor');
  if (!isRequestActor(actor)) throw fail('actor', 'not an actor');
  const at = parseStored(TimestampSchema, fields['at'], key, 'at');
  const record: RequestEventRecord = {
    id,
    event: event as RequestEvent,
    requestId: parseStored(RequestIdSchema, fields['request_id'], key, 'request_id'),
    type: parseStored(RequestTypeSchema, fields['type'], key, 'type'),
    status: parseStored(RequestStatusSchema, fields['status'], key, 'status'),
    at,
    actor,
  };
  // Neither changes the state: no state, no revision.
  if (event === 'refused' || event === 'prompt_fallback') return { ...record, ...(fields['feedback'] === undefined ? {} : { feedback: fields['feedback'] }) };
  const state = parseStored(ProtocolStateSchema, parseStoredJson(fields['state'] ?? '', key, 'state'), key, 'state');
  const rev = Number(fields['rev']);
  if (!Number.isSafeInteger(rev) || rev < 1) throw fail('rev', `revision ${JSON.stringify(fields['rev'])} is not a positive integer`);
  if (state.request_id !== record.requestId || state.status !== record.status) throw fail('state', 'state does not match the entry');
  return { ...record, state, rev };
}

/**
 * Reads the request audit stream in order, oldest first.
 * @throws StoreInputError for an `after` that is not a stream id.
 * @throws StoreDataError for an entry that does not parse (the message names its stream id).
 */
export async function readRequestEvents(redis: RedisClient, keys: StoreKeys, options: ReadRequestEventsOptions = {}): Promise<RequestEventRecord[]> {
  if (options.after !== undefined && !/^\d{1,20}-\d{1,20}$/.test(options.after)) {
    throw new StoreInputError(`after ${JSON.stringify(options.after.slice(0, 50))} is not a stream id`);
  }
  const start = options.after === undefined ? '-' : `(${options.after}`;
  const entries = await redis.xRange(keys.requestEvents, start, '+', { COUNT: options.count ?? 100 });
  return (entries ?? []).map((entry) => requestEventFromFields(entry.id, entry.message as Record<string, string>, keys.requestEvents));
}
