import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { Inject, Injectable } from '@nestjs/common';
import { LIMITS, isProtocolMessage, makeError, redactFreeText, redactTextWithin, requestIdOf, type InboxAckFrame, type InboxMessage, type SendFrame } from '@ahp/protocol';
import { InboxFullError, type InboxEntry, type InboxStore, type RequestStore } from '@ahp/store';
import type { AgentConnection } from '../connections/agent-connection.js';
import { PushLoop } from '../connections/push-loop.js';
import { ConnectionRegistry } from '../connections/connection-registry.js';
import { AgentAuthService } from '../auth/agent-auth.service.js';
import { LOGGER } from '../config/config.tokens.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { checkSend } from '../requests/request-access.js';
import { INBOX_STORE, REQUEST_STORE } from '../store/store.tokens.js';

/**
 * The id of the message a `send` frame stores: derived from the sender, the frame id and the
 * recipient, so a frame sent again — after a reconnect, to any gateway — names the same message,
 * and the store answers it with the stored copy instead of delivering a second one (KI-1 in
 * docs/reliability.md). The frame id is the idempotency key: a client picks a fresh one for every
 * new message (the SDK uses a UUID) and keeps it when it re-sends. The recipient is part of the
 * id so that message ids stay unique even when a client reuses a frame id for another recipient
 * (the dedup record lives in the recipient's inbox, so that is simply another message).
 */
export function sentMessageId(senderId: string, frameId: string, recipientId: string): string {
  return `msg_${createHash('sha256').update(`${senderId}\n${frameId}\n${recipientId}`).digest('hex').slice(0, 32)}`;
}

/** Whether a stored message is the one a (re-sent) frame asks to send: same recipient, content, type and metadata. */
function sameMessage(stored: InboxMessage, wanted: InboxMessage): boolean {
  return stored.to === wanted.to && stored.content === wanted.content && stored.type === wanted.type && isDeepStrictEqual(stored.metadata, wanted.metadata);
}

/** Messages read from the store per round trip while pushing an inbox. */
const DELIVERY_BATCH = 100;

/** Most message ids of the frames answered together. */
const ACK_BATCH_IDS = 1000;

/**
 * Most message ids removed in one call to the store: one script run, which blocks Redis while it
 * runs. A thousand lookups in one script held every other agent's hook behind it for a
 * millisecond or two; a hundred at a time let their commands in between.
 */
const ACK_CALL_IDS = 100;

/** The `inbox_ack` frames of one connection that wait for the removal in Redis before theirs. */
interface AckQueue {
  frames: InboxAckFrame[];
  running: boolean;
}

/**
 * Where pushing one connection's inbox stands. `cursor` is the last entry pushed on this
 * connection: later rounds read only what came after it, so a notification never pushes a
 * message twice on one connection (a new connection starts from the beginning: whatever was not
 * acknowledged is delivered again).
 */
interface Delivery {
  cursor: string | undefined;
  loop: PushLoop;
}

/**
 * Durable inboxes on the gateway's side (docs/spec/teams.md#messages-and-inboxes): `send` and `inbox_ack` frames,
 * and pushing each connected agent's inbox to it.
 *
 * Messages live in the {@link InboxStore} until the recipient acknowledges them; this service
 * only pushes. It pushes everything pending when an agent's connection is welcomed (on any
 * gateway), and what is new whenever the store notifies this gateway that one of its agents got
 * mail. A protocol message (`*_request`, `*_response`) is preceded by a `request_update` with the
 * request's current state, so the client learns the state (the plan to review, the decision and
 * its feedback) from the same delivery that carries the message.
 */
@Injectable()
export class InboxService {
  private readonly deliveries = new WeakMap<AgentConnection, Delivery>();
  private readonly acks = new WeakMap<AgentConnection, AckQueue>();
  private readonly log: JsonLogger;

  constructor(
    @Inject(INBOX_STORE) private readonly inbox: InboxStore,
    @Inject(REQUEST_STORE) private readonly requests: RequestStore,
    @Inject(AgentAuthService) private readonly auth: AgentAuthService,
    @Inject(ConnectionRegistry) private readonly registry: ConnectionRegistry,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'inbox' });
  }

  /**
   * Serves a `send` frame: a `message` or `idle_notification` to a teammate. The sender is the
   * connection's agent; the store assigns nothing, so the id ({@link sentMessageId}) and time are
   * set here. A frame sent again within the store's dedup window (24 h) is acknowledged with the
   * message as first stored; the same frame id reused for a different message is refused with
   * `E_CONFLICT`, showing the stored one.
   */
  async send(connection: AgentConnection, frame: SendFrame, now: number = Date.now()): Promise<void> {
    const { message } = frame;
    const refusal = checkSend(connection.agent.identity, message.to, (id) => this.auth.identityOf(id));
    if (refusal !== null) {
      connection.sendError(frame.id, refusal);
      return;
    }
    const stored: InboxMessage = {
      id: sentMessageId(connection.agentId, frame.id, message.to),
      from: connection.agentId,
      to: message.to,
      // Redacted as the store will keep it (the store redacts too; redaction is idempotent), so a
      // re-sent frame compares equal to what was stored; kept within the limit, which redaction can push it over.
      content: redactTextWithin(message.content, LIMITS.maxLongText),
      type: message.type,
      metadata: redactFreeText(message.metadata ?? {}),
      sent_at: new Date(now).toISOString(),
    };
    let entry: InboxEntry;
    try {
      entry = await this.inbox.send(stored, now);
    } catch (error) {
      if (error instanceof InboxFullError) {
        // The sender's problem to wait out; the recipient and its inbox are not disturbed.
        this.log.info({ agentId: connection.agentId, to: message.to, limit: error.limit }, 'message refused: the inbox is full');
        connection.sendError(frame.id, makeError('E_RATE_LIMITED', error.message, { limit: `inbox_${error.limit}`, to: message.to, max: error.max }, { retryAfterMs: 5000 }));
        return;
      }
      this.log.error({ agentId: connection.agentId, to: message.to, error }, 'storing the message failed');
      connection.sendError(frame.id, makeError('E_UNAVAILABLE', 'the message could not be stored; retry shortly', undefined, { retryAfterMs: 1000 }));
      return;
    }
    if (!sameMessage(entry.message, stored)) {
      connection.sendError(
        frame.id,
        makeError('E_CONFLICT', `frame id ${frame.id} already sent a different message; use a new id for a new message`, {
          message_id: entry.message.id,
          stored: { to: entry.message.to, type: entry.message.type, sent_at: entry.message.sent_at },
        }),
      );
      return;
    }
    this.log.debug({ agentId: connection.agentId, to: message.to, messageId: entry.message.id, type: message.type }, 'message sent');
    connection.send({ type: 'ack', id: frame.id, result: { kind: 'message', message: entry.message } });
  }

  /**
   * Serves `inbox_ack`: removes the agent's processed messages. Unknown ids are acknowledged too
   * (idempotent).
   *
   * One connection has at most one removal in Redis at a time. Acks that arrive meanwhile wait,
   * and go together in the next call (their ids once each, up to {@link ACK_BATCH_IDS} per
   * call); each frame is answered when the call that carried its ids returns. A flood of acks
   * used to become one script per frame, queued on the connection to Redis that every agent's
   * hooks share — 1,000 acks of 1,000 ids each held every hook behind a million lookups. Now it
   * costs the flooder its own wait, one bounded call at a time, with other agents' commands in
   * between.
   */
  ack(connection: AgentConnection, frame: InboxAckFrame): Promise<void> {
    let queue = this.acks.get(connection);
    if (queue === undefined) {
      queue = { frames: [], running: false };
      this.acks.set(connection, queue);
    }
    queue.frames.push(frame);
    if (queue.running) return Promise.resolve();
    queue.running = true;
    return this.drainAcks(connection, queue);
  }

  /** Sends the waiting acks to Redis, a batch of whole frames per call, until none waits. */
  private async drainAcks(connection: AgentConnection, queue: AckQueue): Promise<void> {
    try {
      while (queue.frames.length > 0) {
        const ids = new Set<string>();
        let taken = 0;
        // Whole frames only (each has at most 1,000 ids), and always at least one.
        for (const next of queue.frames) {
          const added = next.message_ids.filter((id) => !ids.has(id));
          if (taken > 0 && ids.size + added.length > ACK_BATCH_IDS) break;
          for (const id of added) ids.add(id);
          taken += 1;
        }
        const batch = queue.frames.splice(0, taken);
        try {
          const all = [...ids];
          for (let start = 0; start < all.length; start += ACK_CALL_IDS) await this.inbox.ack(connection.agentId, all.slice(start, start + ACK_CALL_IDS));
        } catch (error) {
          this.log.error({ agentId: connection.agentId, error }, 'acknowledging messages failed');
          for (const frame of batch) {
            connection.sendError(frame.id, makeError('E_UNAVAILABLE', 'the acknowledgement could not be stored; retry shortly', undefined, { retryAfterMs: 1000 }));
          }
          continue;
        }
        for (const frame of batch) connection.send({ type: 'ack', id: frame.id });
      }
    } finally {
      queue.running = false;
    }
  }

  /** Starts pushing a freshly welcomed connection's inbox: everything not acknowledged yet, oldest first. */
  connected(connection: AgentConnection): void {
    const delivery: Delivery = { cursor: undefined, loop: new PushLoop(() => this.pushPending(connection, delivery)) };
    this.deliveries.set(connection, delivery);
    delivery.loop.trigger();
  }

  /**
   * The store says `agentId` has new messages: push them to the agent's connections here. A
   * connection not welcomed yet is skipped; its welcome starts a full delivery that includes them.
   */
  notify(agentId: string): void {
    for (const connection of this.registry.currentOf(agentId)) this.deliveries.get(connection)?.loop.trigger();
  }

  /** One pass from the cursor to the end of the inbox; false when delivery must stop (socket gone, store unreachable). */
  private async pushPending(connection: AgentConnection, delivery: Delivery): Promise<boolean> {
    for (;;) {
      if (connection.state !== 'ready' || !connection.isOpen) return false;
      let entries: InboxEntry[];
      try {
        entries = await this.inbox.pending(connection.agentId, delivery.cursor, DELIVERY_BATCH);
      } catch (error) {
        // Nothing is lost: the messages stay in the store, and the next notice or reconnect
        // reads them again from the cursor.
        this.log.warn({ agentId: connection.agentId, sessionId: connection.sessionId, error }, 'reading the inbox failed');
        return false;
      }
      for (const entry of entries) {
        if (!(await this.push(connection, entry))) return false;
        delivery.cursor = entry.cursor;
      }
      if (entries.length < DELIVERY_BATCH) return true;
    }
  }

  /** Pushes one message (with its request's state first, for a protocol message); false when the socket is gone. */
  private async push(connection: AgentConnection, entry: InboxEntry): Promise<boolean> {
    const { message } = entry;
    const requestId = isProtocolMessage(message) ? requestIdOf(message) : null;
    if (requestId !== null) {
      try {
        const found = await this.requests.get(requestId);
        if (found !== null && !connection.push({ type: 'request_update', request: found.state })) return false;
      } catch (error) {
        this.log.warn({ agentId: connection.agentId, requestId, error }, 'reading the request of a protocol message failed; delivering the message alone');
      }
    }
    if (!connection.push({ type: 'inbox', message })) return false;
    connection.log.debug({ sessionId: connection.sessionId, messageId: message.id, type: message.type }, 'inbox message pushed');
    return true;
  }
}
