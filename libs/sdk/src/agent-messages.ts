/**
 * What the agent says that is not a request: a message to a teammate's inbox (`send`), an event
 * for its own timeline (`report`), and the idle loop that waits for the next message (`idle`).
 */
import { EventFrameSchema, SendFrameSchema } from '@ahp/protocol/wire';
import type { AgentEvent, InboxMessage, JsonObject, SendableMessageType } from '@ahp/protocol/wire';
import { checkDuration } from './client-options.js';
import { AhpClientError } from './errors.js';
import { checkOutgoing } from './outgoing-frame.js';
import type { RequestManager } from './request-manager.js';
import type { IdleResult, TeamChannel } from './team.js';

/** Options of {@link AhpClient.send}. */
export interface SendOptions {
  /** @defaultValue `'message'` */
  type?: SendableMessageType;
  metadata?: JsonObject;
}

/** Options of {@link AhpClient.idle}. */
export interface IdleOptions {
  /**
   * Resolve with `{ kind: 'timeout' }` after this long without a message.
   * @defaultValue wait until a message arrives, a shutdown is approved, or the client closes
   */
  timeoutMs?: number;
}

/** What {@link AgentMessages} needs from the client. */
export interface AgentMessagesDeps {
  readonly team: TeamChannel;
  readonly requests: RequestManager;
  readonly requestDeadlineMs: number;
}

/** See the module comment; each method is documented on {@link AhpClient}. */
export class AgentMessages {
  readonly #deps: AgentMessagesDeps;

  constructor(deps: AgentMessagesDeps) {
    this.#deps = deps;
  }

  async send(to: string, content: string, options: SendOptions = {}): Promise<InboxMessage> {
    const frame = {
      type: 'send' as const,
      id: globalThis.crypto.randomUUID(),
      message: { to, content, type: options.type ?? 'message', ...(options.metadata === undefined ? {} : { metadata: options.metadata }) },
    };
    const checked = checkOutgoing(SendFrameSchema, frame, 'message');
    const reply = await this.#deps.requests.send(checked, { deadlineMs: this.#deps.requestDeadlineMs });
    if (reply.result?.kind !== 'message') throw new AhpClientError('E_PROTOCOL', 'the gateway acknowledged a message without returning it');
    return reply.result.message;
  }

  idle(options: IdleOptions = {}): Promise<IdleResult> {
    const timeoutMs = options.timeoutMs === undefined ? undefined : checkDuration('timeoutMs', options.timeoutMs, 0);
    return this.#deps.team.idle(timeoutMs);
  }

  async report(event: AgentEvent): Promise<void> {
    const frame = { type: 'event' as const, id: globalThis.crypto.randomUUID(), event };
    const checked = checkOutgoing(EventFrameSchema, frame, 'event');
    await this.#deps.requests.send(checked, { deadlineMs: this.#deps.requestDeadlineMs });
  }
}
