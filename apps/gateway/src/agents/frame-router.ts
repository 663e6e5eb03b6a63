import { Inject, Injectable } from '@nestjs/common';
import { assertNever, makeError, type AhpError, type ClientFrame, type ClientFrameType } from '@ahp/protocol';
import { HooksService } from '../hooks/hooks.service.js';
import { PresenceService } from '../presence/presence.service.js';
import { SignalResponsesService } from '../signals/signal-responses.service.js';
import type { AgentConnection } from './agent-connection.js';
import { HandshakeService } from './handshake.service.js';

/** Frame types of later features: parsed and answered, but not served by this gateway yet. */
type NotYetServed = Extract<ClientFrameType, 'request' | 'response' | 'send' | 'event'>;

/**
 * `E_UNAVAILABLE` for a frame type this gateway does not serve yet. `retryable` is set to false
 * on purpose, against the table's default for the code: re-sending to this build of the gateway
 * cannot succeed, so an SDK that retries retryable errors must not loop on it.
 */
function notAvailable(type: NotYetServed): AhpError {
  return { ...makeError('E_UNAVAILABLE', `"${type}" frames are not available on this gateway yet`, { type }), retryable: false };
}

/**
 * Sends each parsed frame to the service that serves it, enforcing the handshake: nothing but
 * `hello` before the welcome, no second `hello`, no new requests on a closing connection. The
 * switch is exhaustive over the client frame types, so a type added to the protocol fails to
 * compile here until it is routed.
 */
@Injectable()
export class FrameRouter {
  constructor(
    @Inject(HandshakeService) private readonly handshake: HandshakeService,
    @Inject(HooksService) private readonly hooks: HooksService,
    @Inject(SignalResponsesService) private readonly signals: SignalResponsesService,
    @Inject(PresenceService) private readonly presence: PresenceService,
  ) {}

  async route(connection: AgentConnection, frame: ClientFrame): Promise<void> {
    if (connection.state === 'closing') {
      connection.sendError(frame.id, makeError('E_SHUTTING_DOWN', 'this connection is closing; reconnect and re-send', undefined, { retryAfterMs: 1000 }));
      return;
    }
    if (frame.type !== 'hello' && connection.state === 'awaiting_hello') {
      connection.fail(frame.id, 'E_HANDSHAKE', `send hello and wait for welcome first ("${frame.type}" arrived before the welcome)`);
      return;
    }
    if (connection.state === 'ready') this.presence.touch(connection);

    switch (frame.type) {
      case 'hello':
        if (connection.state !== 'awaiting_hello' || connection.helloInFlight) {
          connection.fail(frame.id, 'E_HANDSHAKE', 'hello was already sent on this connection');
          return;
        }
        return this.handshake.hello(connection, frame);
      case 'hook':
        return this.hooks.handleHook(connection, frame);
      case 'signal_response':
        return this.signals.handle(connection, frame);
      case 'inbox_ack':
        // Acknowledging is idempotent: an id that is not (or no longer) in the inbox is simply
        // acknowledged. This gateway keeps no inbox yet, so every id is such an id; the SDK's
        // liveness probe for clients that cannot see pings relies on this answer.
        connection.send({ type: 'ack', id: frame.id });
        return;
      case 'request':
      case 'response':
      case 'send':
      case 'event':
        connection.sendError(frame.id, notAvailable(frame.type));
        return;
      default:
        return assertNever(frame, 'client frame');
    }
  }
}
