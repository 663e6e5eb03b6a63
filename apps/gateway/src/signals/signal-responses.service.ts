import { Inject, Injectable } from '@nestjs/common';
import { makeError, type SignalResponseFrame } from '@ahp/protocol';
import type { SignalStore } from '@ahp/store';
import type { AgentConnection } from '../connections/agent-connection.js';
import { LOGGER } from '../config/config.tokens.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { SIGNAL_STORE } from '../store/store.tokens.js';

/**
 * Records an agent's answer to a signal it consumed. The agent is the connection's (from its
 * token), never anything the frame says, so an agent can only answer signals sent to itself.
 */
@Injectable()
export class SignalResponsesService {
  private readonly log: JsonLogger;

  constructor(
    @Inject(SIGNAL_STORE) private readonly signals: SignalStore,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'signals' });
  }

  /** Answers the frame with an `ack` or a typed `error`. */
  async handle(connection: AgentConnection, frame: SignalResponseFrame, now: number = Date.now()): Promise<void> {
    const { response } = frame;
    const fields = { agentId: connection.agentId, sessionId: connection.sessionId, signalId: response.signal_id, action: response.action };
    let outcome: Awaited<ReturnType<SignalStore['respond']>>;
    try {
      outcome = await this.signals.respond(connection.agentId, response, now);
    } catch (error) {
      this.log.error({ ...fields, error }, 'recording the signal response failed');
      connection.sendError(frame.id, makeError('E_UNAVAILABLE', 'the response could not be recorded; retry shortly', undefined, { retryAfterMs: 1000 }));
      return;
    }
    switch (outcome.outcome) {
      case 'recorded':
        this.log.info({ ...fields, correlationId: outcome.record.hook_id }, 'signal response recorded');
        connection.send({ type: 'ack', id: frame.id });
        return;
      case 'duplicate':
        // The ack frame has no room for a remark (it is strict), so "already recorded" is only
        // logged; for the agent a repeat is simply acknowledged again, as the protocol promises.
        this.log.debug({ ...fields, correlationId: outcome.record.hook_id }, 'signal response already recorded');
        connection.send({ type: 'ack', id: frame.id });
        return;
      case 'conflict':
        connection.fail(frame.id, 'E_CONFLICT', 'this signal was already answered with a different response', {
          recorded_action: outcome.record.response?.action ?? null,
          recorded_at: outcome.record.response?.consumed_at ?? null,
        });
        return;
      case 'not_found':
        connection.fail(frame.id, 'E_NOT_FOUND', `signal ${response.signal_id} does not exist (or expired)`, { signal_id: response.signal_id });
        return;
      case 'forbidden':
        connection.fail(frame.id, 'E_FORBIDDEN', `signal ${response.signal_id} was not sent to this agent`, { signal_id: response.signal_id });
        return;
      case 'invalid_action':
        connection.fail(frame.id, 'E_INVALID_ACTION', `"${response.action}" is not a valid action for this signal`, {
          action: response.action,
          allowed: [...outcome.allowed],
        });
        return;
    }
  }
}
