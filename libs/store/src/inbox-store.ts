/**
 * InboxStore on Redis: one stream per agent (`<prefix>:inbox:{<agentId>}`), entries `{ id, message }`,
 * plus a hash message id → entry id so that acknowledging by message id is one HGET per message.
 *
 * Delivery path: `send` appends (inbox-send), then XADDs `{ kind: 'inbox', agent_id }` to the feed
 * of the gateway named in the recipient's presence entry. That gateway reads `pending(agent,
 * lastDeliveredCursor)` and pushes the messages; a gateway that accepts a connection reads
 * `pending(agent)` from the start. Messages leave the inbox only through `ack`.
 */
import { createHash } from 'node:crypto';
import { InboxMessageSchema, LIMITS, redactFreeText, redactTextWithin, silentLogger, type InboxMessage, type Logger } from '@ahp/protocol';
import type { InboxEntry, InboxStore } from './contracts.js';
import { InboxFullError, StoreDataError, StoreInputError } from './errors.js';
import { notifyInbox, type InboxNotifyOptions } from './gateway-feed.js';
import { LuaScript, arrayReply, badReply, parseStored, parseStoredJson, stringAt } from './lua.js';
import { INBOX_ACK_LUA } from './scripts/inbox-ack.lua.js';
import { INBOX_SEND_LUA } from './scripts/inbox-send.lua.js';
import { INBOX_SET_ASIDE_LUA } from './scripts/inbox-set-aside.lua.js';
import { reportUnreadableEntry } from './unreadable-entry.js';
import { canonicalJson, describeIssues } from './validate.js';

const inboxSend = new LuaScript('inbox-send', INBOX_SEND_LUA);
const inboxAck = new LuaScript('inbox-ack', INBOX_ACK_LUA);
const inboxSetAside = new LuaScript('inbox-set-aside', INBOX_SET_ASIDE_LUA);

/** About how many entries an inbox's unreadable stream keeps (`XADD MAXLEN ~`). */
export const INBOX_UNREADABLE_MAX_LEN = 100;
/** An inbox's unreadable stream expires this long after its last entry: 7 days. */
export const INBOX_UNREADABLE_TTL_MS = 7 * 24 * 3_600_000;

/** Default of {@link InboxStoreOptions.sendDedupMs}: 24 hours. */
export const DEFAULT_INBOX_SEND_DEDUP_MS = 24 * 3_600_000;

/** Default of {@link InboxStoreOptions.maxMessages}. */
export const DEFAULT_INBOX_MAX_MESSAGES = 1_000;

/** Default of {@link InboxStoreOptions.maxBytes}: 16 MiB (64 messages of the largest size). */
export const DEFAULT_INBOX_MAX_BYTES = 16 * 1024 * 1024;

/** Options of {@link createInboxStore}; {@link createRedisStores} fills them from its own. */
export interface InboxStoreOptions extends InboxNotifyOptions {
  /**
   * How long `send` remembers a message id after sending it, so that the same id sent again
   * returns the stored message instead of delivering a second copy — also after the recipient
   * acknowledged it.
   * @defaultValue {@link DEFAULT_INBOX_SEND_DEDUP_MS}
   */
  sendDedupMs?: number;
  /**
   * Most unacknowledged messages one inbox holds; `send` refuses more with InboxFullError.
   * @defaultValue {@link DEFAULT_INBOX_MAX_MESSAGES}
   */
  maxMessages?: number;
  /**
   * Most bytes of message JSON one inbox holds; `send` refuses a message that would pass it with InboxFullError.
   * @defaultValue {@link DEFAULT_INBOX_MAX_BYTES}
   */
  maxBytes?: number;
  /** Where `pending` reports an entry it set aside because it does not parse (key and entry id). @defaultValue silent */
  logger?: Logger;
}

/**
 * The arguments of inbox-send after the message: the sent record keeps a digest of what the
 * message says (not its time: a re-sent frame is stamped anew) and its head (no content, no free
 * metadata), not a second copy of the message.
 */
export function sentRecordArgs(message: InboxMessage): [string, string] {
  const { request_id: requestId, approve } = message.metadata;
  const head = {
    id: message.id,
    from: message.from,
    to: message.to,
    type: message.type,
    sent_at: message.sent_at,
    metadata: { ...(requestId === undefined ? {} : { request_id: requestId }), ...(approve === undefined ? {} : { approve }) },
  };
  const says = canonicalJson({ from: message.from, to: message.to, type: message.type, content: message.content, metadata: message.metadata });
  return [createHash('sha256').update(says).digest('base64url'), JSON.stringify(head)];
}

/**
 * `message` with its free text redacted (free-text.ts), parsed again: redaction can make text
 * longer, and an entry that does not parse would fail every read of the inbox.
 */
function redactedMessage(message: InboxMessage): InboxMessage {
  const content = redactTextWithin(message.content, LIMITS.maxLongText);
  const metadata = redactFreeText(message.metadata);
  if (content === message.content && metadata === message.metadata) return message;
  const checked = InboxMessageSchema.safeParse({ ...message, content, metadata });
  if (!checked.success) throw new StoreInputError(`invalid inbox message once its credentials are redacted: ${describeIssues(checked.error.issues)}`);
  return checked.data;
}

/** Largest `limit` of `pending`. */
const MAX_PENDING = 1000;

/** A stream entry id, the only cursor `pending` accepts. */
const CURSOR = /^\d{1,20}-\d{1,20}$/;

/**
 * Creates the Redis InboxStore. See {@link InboxStore} for the guarantees.
 *
 * Beyond the interface:
 * - `send` validates the message with InboxMessageSchema (StoreInputError) and is idempotent per
 *   message id for `sendDedupMs` (24 h) after the first send, acknowledged or not: sending the
 *   same id again appends nothing and returns the first entry — its cursor and the message as
 *   first stored — and notifies again, which repairs a notice lost with a failed call. `now` is
 *   not needed: the message carries `sent_at`.
 * - `pending(agentId, afterCursor, limit = 100)`: `afterCursor` must be a cursor this store
 *   returned (StoreInputError otherwise); `limit` is 1 to 1000.
 * - An inbox holds at most `maxMessages` messages and `maxBytes` bytes of message JSON: `send`
 *   refuses a message beyond either with InboxFullError and changes nothing (a retry of a message
 *   already stored is answered as before). Messages the request store delivers (requests to an
 *   agent, their answers) count but are never refused: the number of pending requests per sender
 *   bounds them. Inboxes never expire and are not trimmed: durability wins over memory; an agent
 *   that is gone for good has its inbox deleted by an operator.
 * - The dedup record keeps the stored message's digest and head, not a copy: a same-id send with
 *   the same content gets the message back; one with other content gets the stored message while
 *   it is unacknowledged, else its head with empty content (what it said is gone with the ack).
 * - Every entry read back is parsed with InboxMessageSchema and must be addressed to the inbox's
 *   agent under its own id. `pending` passes over an entry that is not (written before the size
 *   checks existed, or by hand): it moves it to the inbox's unreadable stream
 *   (`keys.inboxUnreadable`, inbox-set-aside, one script on the agent's tag), reports it on `logger`
 *   with its key and entry id, and goes on reading, so one bad entry neither stops the rest of the
 *   inbox being delivered nor comes back on every connection and keeps counting against the
 *   inbox's limits. It is kept there, not deleted, so an operator can still see what it was.
 *   `send` still throws StoreDataError for a stored copy of its own message that does not parse.
 */
export function createInboxStore(options: InboxStoreOptions): InboxStore {
  const { redis, keys } = options;
  const sendDedupMs = options.sendDedupMs ?? DEFAULT_INBOX_SEND_DEDUP_MS;
  if (!Number.isInteger(sendDedupMs) || sendDedupMs < 1) throw new StoreInputError(`sendDedupMs must be a positive integer, got ${sendDedupMs}`);
  const maxMessages = options.maxMessages ?? DEFAULT_INBOX_MAX_MESSAGES;
  const maxBytes = options.maxBytes ?? DEFAULT_INBOX_MAX_BYTES;
  const logger = options.logger ?? silentLogger;
  for (const [name, value] of [['maxMessages', maxMessages], ['maxBytes', maxBytes]] as const) {
    if (!Number.isInteger(value) || value < 1) throw new StoreInputError(`${name} must be a positive integer, got ${value}`);
  }

  /**
   * The message a dedup record's head stands for: with `says` (the same digest) the first message
   * whole — its head, this content and metadata; without, its head with empty content (acknowledged
   * since: what it said is not kept).
   */
  function fromHead(agentId: string, messageId: string, head: unknown, says?: InboxMessage): InboxMessage {
    const key = keys.inboxSent(agentId, messageId);
    const parsed = typeof head === 'string' && head !== '' ? parseStoredJson(head, key, 'head') : undefined;
    const body = says === undefined ? { content: '' } : { content: says.content, metadata: says.metadata };
    return parseStored(InboxMessageSchema, typeof parsed === 'object' && parsed !== null ? { ...parsed, ...body } : parsed, key, 'head');
  }

  function entryMessage(agentId: string, entryId: string, messageId: unknown, json: unknown): InboxMessage {
    const key = keys.inbox(agentId);
    if (typeof json !== 'string') throw new StoreDataError(key, `entry ${entryId} has no message`, { field: entryId });
    const message = parseStored(InboxMessageSchema, parseStoredJson(json, key, entryId), key, entryId);
    if (message.to !== agentId || (messageId !== undefined && messageId !== message.id)) {
      throw new StoreDataError(key, `entry ${entryId} holds message ${message.id} to ${message.to}`, { field: entryId });
    }
    return message;
  }

  /** Moves an entry that does not parse out of the inbox (see the notes of {@link createInboxStore}) and reports it. */
  async function setAside(agentId: string, entryId: string, error: StoreDataError): Promise<void> {
    const key = keys.inbox(agentId);
    const why = error.message.slice(0, 500);
    const moved = await inboxSetAside.run(redis, [key, keys.inboxIds(agentId), keys.inboxUnreadable(agentId)], [entryId, why, INBOX_UNREADABLE_MAX_LEN, INBOX_UNREADABLE_TTL_MS]);
    if (moved !== 0 && moved !== 1) throw badReply(key, inboxSetAside.name, moved);
    if (moved === 1) reportUnreadableEntry(logger, error, { key, entry: entryId, agentId, during: 'inbox delivery', outcome: 'set aside' });
  }

  return {
    async send(message: InboxMessage): Promise<InboxEntry> {
      const checked = InboxMessageSchema.safeParse(message);
      if (!checked.success) throw new StoreInputError(`invalid inbox message: ${describeIssues(checked.error.issues)}`);
      // Free text is stored redacted (free-text.ts); the sender's ack shows what was stored.
      const valid = redactedMessage(checked.data);
      const key = keys.inbox(valid.to);
      const json = JSON.stringify(valid);
      const reply = arrayReply(
        await inboxSend.run(redis, [key, keys.inboxIds(valid.to), keys.inboxSent(valid.to, valid.id)], [valid.id, json, sendDedupMs, ...sentRecordArgs(valid), maxMessages, maxBytes]),
        key,
        inboxSend.name,
      );
      const kind = stringAt(reply, 0, key, inboxSend.name);
      const cursor = stringAt(reply, 1, key, inboxSend.name);
      let entry: InboxEntry;
      switch (kind) {
        case 'appended':
          entry = { cursor, message: valid };
          break;
        case 'existing':
          // '' and a head: the stored JSON is not at hand (see fromHead); '1' after it: it said the same.
          if (reply[2] === '') entry = { cursor, message: fromHead(valid.to, valid.id, reply[3], reply[4] === '1' ? valid : undefined) };
          else entry = { cursor, message: entryMessage(valid.to, cursor, valid.id, reply[2]) };
          break;
        case 'full':
          throw new InboxFullError(valid.to, cursor === 'bytes' ? 'bytes' : 'messages', Number(reply[2]));
        case 'corrupt':
          throw new StoreDataError(keys.inboxIds(valid.to), `message ${valid.id} points at entry ${cursor}, which the inbox does not hold`, { field: valid.id });
        default:
          throw badReply(key, inboxSend.name, reply);
      }
      await notifyInbox(options, valid.to);
      return entry;
    },

    async pending(agentId: string, afterCursor?: string, limit = 100): Promise<InboxEntry[]> {
      if (afterCursor !== undefined && !CURSOR.test(afterCursor)) throw new StoreInputError(`cursor ${JSON.stringify(afterCursor.slice(0, 50))} is not an inbox cursor`);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PENDING) throw new StoreInputError(`limit must be an integer from 1 to ${MAX_PENDING}, got ${limit}`);
      const key = keys.inbox(agentId);
      const found: InboxEntry[] = [];
      let cursor = afterCursor;
      // Reads on past entries set aside, so a full page still means "there may be more".
      for (;;) {
        const wanted = limit - found.length;
        const entries = (await redis.xRange(key, cursor === undefined ? '-' : `(${cursor}`, '+', { COUNT: wanted })) ?? [];
        for (const entry of entries) {
          cursor = entry.id;
          const fields = entry.message as Record<string, unknown>;
          try {
            found.push({ cursor: entry.id, message: entryMessage(agentId, entry.id, fields['id'] ?? null, fields['message']) });
          } catch (error) {
            if (!(error instanceof StoreDataError)) throw error;
            await setAside(agentId, entry.id, error);
          }
        }
        if (entries.length < wanted || found.length === limit) return found;
      }
    },

    async ack(agentId: string, messageIds: readonly string[]): Promise<number> {
      if (messageIds.length === 0) return 0;
      const key = keys.inbox(agentId);
      const removed = await inboxAck.run(redis, [key, keys.inboxIds(agentId)], [...messageIds]);
      if (typeof removed !== 'number') throw badReply(key, inboxAck.name, removed);
      return removed;
    },
  };
}
