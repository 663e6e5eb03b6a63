import { Inject, Injectable } from '@nestjs/common';
import { assertNever, makeError, type ClientFrame } from '@ahp/protocol';
import { HooksService } from '../hooks/hooks.service.js';
import { InboxService } from '../inbox/inbox.service.js';
import { PresenceService } from '../presence/presence.service.js';
import { RateLimitsService } from '../rate-limit/rate-limits.service.js';
import { RequestsService } from '../requests/requests.service.js';
import { SignalResponsesService } from '../signals/signal-responses.service.js';
import { TimelineService } from '../timeline/timeline.service.js';
import type { AgentConnection } from './agent-connection.js';
import { HandshakeService } from './handshake.service.js';

/**
 * Sends each parsed frame to the service that serves it, enforcing the handshake: nothing but
 * `hello` before the welcome, no second `hello`, no new requests on a closing connection — and
 * the agent's rate limit on the frames that make the control plane work (`E_RATE_LIMITED` with
 * `retry_after_ms`, counted in Redis across all its connections and gateways). The switch is
 * exhaustive over the client frame types, so a type added to the protocol fails to compile here
 * until it is routed.
 *
 * Limited frames wait for one Redis round trip before they are served; Redis answers one
 * connection's commands in order, so they still reach their services in the order they came.
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
    @Inject(RateLimitsService) private readonly rateLimits: RateLimitsService,
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
    if (connection.state === 'ready' && this.rateLimits.counts(frame.type)) {
      const limited = await this.rateLimits.checkAgent(connection.agentId);
      if (limited !== null) {
        connection.log.debug({ sessionId: connection.sessionId, frameId: frame.id, frameType: frame.type, retryAfterMs: limited.retry_after_ms }, 'frame rate limited');
        connection.sendError(frame.id, limited);
        return;
      }
      if (connection.state !== 'ready') {
        connection.sendError(frame.id, makeError('E_SHUTTING_DOWN', 'this connection is closing; reconnect and re-send', undefined, { retryAfterMs: 1000 }));
        return;
      }
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
      case 'cancel':
        return this.requests.cancel(connection, frame);
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
