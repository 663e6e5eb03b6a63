import { Inject, Injectable } from '@nestjs/common';
import { assertNever, makeError, type ClientFrame } from '@ahp/protocol';
import { GATEWAY_CONFIG } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { HooksService } from '../hooks/hooks.service.js';
import { InboxService } from '../inbox/inbox.service.js';
import { PresenceService } from '../presence/presence.service.js';
import { RateLimitsService } from '../rate-limit/rate-limits.service.js';
import { RequestsService } from '../requests/requests.service.js';
import { SignalResponsesService } from '../signals/signal-responses.service.js';
import { TimelineService } from '../timeline/timeline.service.js';
import type { AgentConnection } from '../connections/agent-connection.js';
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
 *
 * A hook takes its place among the connection's `max_in_flight` (`AHP_MAX_IN_FLIGHT`) before
 * anything is awaited, so that a burst is counted exactly; one over the limit is refused
 * `E_RATE_LIMITED` at once. The place is freed when the hook is answered — by an error, a stored
 * decision, or the decision the gateway waited for.
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
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async route(connection: AgentConnection, frame: ClientFrame): Promise<void> {
    if (frame.type !== 'hook' || connection.state !== 'ready') return this.serve(connection, frame);
    const hookId = frame.id;
    if (!connection.admitHook(hookId, this.config.maxInFlight)) {
      connection.sendError(
        hookId,
        makeError('E_RATE_LIMITED', `more than ${this.config.maxInFlight} hooks are awaiting a decision on this connection`, undefined, { retryAfterMs: 100 }),
      );
      return;
    }
    try {
      await connection.hookAdmissions.run(() => this.serve(connection, frame));
    } finally {
      // Answered already (an error, a stored decision) or not waited for (the socket closed): the
      // place is free. A hook the gateway now waits for keeps it until its decision is delivered.
      if (!this.hooks.isWaiting(connection, hookId)) connection.pendingHooks.delete(hookId);
    }
  }

  private async serve(connection: AgentConnection, frame: ClientFrame): Promise<void> {
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
