import { Inject, Injectable } from '@nestjs/common';
import { assertNever, makeError, type ClientFrame } from '@ahp/protocol';
import { HooksService } from '../hooks/hooks.service.js';
import { InboxService } from '../inbox/inbox.service.js';
import { PresenceService } from '../presence/presence.service.js';
import { RequestsService } from '../requests/requests.service.js';
import { SignalResponsesService } from '../signals/signal-responses.service.js';
import { TimelineService } from '../timeline/timeline.service.js';
import type { AgentConnection } from './agent-connection.js';
import { HandshakeService } from './handshake.service.js';

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
    @Inject(RequestsService) private readonly requests: RequestsService,
    @Inject(InboxService) private readonly inbox: InboxService,
    @Inject(TimelineService) private readonly timeline: TimelineService,
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
      case 'request':
        return this.requests.open(connection, frame);
      case 'response':
        return this.requests.respond(connection, frame);
      case 'send':
        return this.inbox.send(connection, frame);
      case 'inbox_ack':
        // Acknowledging an id that is not (or no longer) in the inbox is acknowledged all the
        // same; the SDK's liveness probe for clients that cannot see pings relies on that.
        return this.inbox.ack(connection, frame);
      case 'event':
        return this.timeline.record(connection, frame);
      default:
        return assertNever(frame, 'client frame');
    }
  }
}
