/**
 * InboxStore on Redis: one stream per agent (`<prefix>:inbox:{<agentId>}`), entries `{ id, message }`,
 * plus a hash message id → entry id so that acknowledging by message id is one HGET per message.
 *
 * Delivery path: `send` appends (inbox-send), then XADDs `{ kind: 'inbox', agent_id }` to the feed
 * of the gateway named in the recipient's presence entry. That gateway reads `pending(agent,
 * lastDeliveredCursor)` and pushes the messages; a gateway that accepts a connection reads
 * `pending(agent)` from the start. Messages leave the inbox only through `ack`.
 */
import { InboxMessageSchema, LIMITS, redactFreeText, redactTextWithin, type InboxMessage } from '@ahp/protocol';
import type { InboxEntry, InboxStore } from './contracts.js';
import { StoreDataError, StoreInputError } from './errors.js';
import { notifyInbox, type InboxNotifyOptions } from './gateway-feed.js';
import { LuaScript, arrayReply, badReply, parseStored, parseStoredJson, stringAt } from './lua.js';
import { INBOX_ACK_LUA } from './scripts/inbox-ack.lua.js';
import { INBOX_SEND_LUA } from './scripts/inbox-send.lua.js';
import { describeIssues } from './validate.js';

const inboxSend = new LuaScript('inbox-send', INBOX_SEND_LUA);
const inboxAck = new LuaScript('inbox-ack', INBOX_ACK_LUA);

/** Default of {@link InboxStoreOptions.sendDedupMs}: 24 hours. */
export const DEFAULT_INBOX_SEND_DEDUP_MS = 24 * 3_600_000;

/** Options of {@link createInboxStore}; {@link createRedisStores} fills them from its own. */
export interface InboxStoreOptions extends InboxNotifyOptions {
  /**
   * How long `send` remembers a message id after sending it, so that the same id sent again
   * returns the stored message instead of delivering a second copy — also after the recipient
   * acknowledged it.
   * @defaultValue {@link DEFAULT_INBOX_SEND_DEDUP_MS}
   */
  sendDedupMs?: number;
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
 * - Inboxes never expire and are not trimmed: durability wins over memory; an agent that is gone
 *   for good has its inbox deleted by an operator.
 * - Every entry read back is parsed with InboxMessageSchema and must be addressed to the inbox's
 *   agent under its own id; otherwise StoreDataError naming the key and the entry.
 */
export function createInboxStore(options: InboxStoreOptions): InboxStore {
  const { redis, keys } = options;
  const sendDedupMs = options.sendDedupMs ?? DEFAULT_INBOX_SEND_DEDUP_MS;
  if (!Number.isInteger(sendDedupMs) || sendDedupMs < 1) throw new StoreInputError(`sendDedupMs must be a positive integer, got ${sendDedupMs}`);

  function entryMessage(agentId: string, entryId: string, messageId: unknown, json: unknown): InboxMessage {
    const key = keys.inbox(agentId);
    if (typeof json !== 'string') throw new StoreDataError(key, `entry ${entryId} has no message`, { field: entryId });
    const message = parseStored(InboxMessageSchema, parseStoredJson(json, key, entryId), key, entryId);
    if (message.to !== agentId || (messageId !== undefined && messageId !== message.id)) {
      throw new StoreDataError(key, `entry ${entryId} holds message ${message.id} to ${message.to}`, { field: entryId });
    }
    return message;
  }

  return {
    async send(message: InboxMessage): Promise<InboxEntry> {
      const checked = InboxMessageSchema.safeParse(message);
      if (!checked.success) throw new StoreInputError(`invalid inbox message: ${describeIssues(checked.error.issues)}`);
      // Free text is stored redacted (free-text.ts); the sender's ack shows what was stored.
      const valid = redactedMessage(checked.data);
      const key = keys.inbox(valid.to);
      const reply = arrayReply(
        await inboxSend.run(redis, [key, keys.inboxIds(valid.to), keys.inboxSent(valid.to, valid.id)], [valid.id, JSON.stringify(valid), sendDedupMs]),
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
          entry = { cursor, message: entryMessage(valid.to, cursor, valid.id, reply[2]) };
          break;
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
      const entries = await redis.xRange(key, afterCursor === undefined ? '-' : `(${afterCursor}`, '+', { COUNT: limit });
      return (entries ?? []).map((entry) => {
        const fields = entry.message as Record<string, unknown>;
        return { cursor: entry.id, message: entryMessage(agentId, entry.id, fields['id'] ?? null, fields['message']) };
      });
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
