import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  CLOSE_CODES,
  PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  makeError,
  type AhpError,
  type HelloFrame,
  type WelcomeAgent,
} from '@ahp/protocol';
import { AgentAuthService } from '../auth/agent-auth.service.js';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import { maxHookDeadline, type GatewayConfig } from '../config/gateway-config.js';
import { InboxService } from '../inbox/inbox.service.js';
import { OperatorSignalsService } from '../operator-signals/operator-signals.service.js';
import { DrainState } from '../lifecycle/drain-state.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { PresenceService } from '../presence/presence.service.js';
import { SessionOpener, type SessionOpening } from '../sessions/session-opener.js';
import type { AgentConnection } from '../connections/agent-connection.js';
import { ConnectionRegistry } from '../connections/connection-registry.js';

/**
 * Answers `hello`: checks the protocol version, counts a new session against the agent's
 * new-session limit (a resumed one is free), opens or resumes the agent's session, makes
 * this connection the agent's current one on this gateway (closing an older one), writes
 * presence, sends `welcome`, and starts pushing the agent's inbox.
 *
 * A refused hello (`E_RATE_LIMITED`) leaves the connection waiting for another one, until the
 * handshake window closes it. A new session resets none of the agent's enforcement: the
 * unanswered-signal hold and the circuit breakers are kept per agent in Redis.
 */
@Injectable()
export class HandshakeService {
  private readonly log: JsonLogger;

  constructor(
    @Inject(SessionOpener) private readonly sessions: SessionOpener,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) logger: JsonLogger,
    @Inject(ConnectionRegistry) private readonly registry: ConnectionRegistry,
    @Inject(PresenceService) private readonly presence: PresenceService,
    @Inject(DrainState) private readonly drain: DrainState,
    @Inject(InboxService) private readonly inbox: InboxService,
    @Inject(AgentAuthService) private readonly auth: AgentAuthService,
    @Inject(OperatorSignalsService) private readonly operatorSignals: OperatorSignalsService,
  ) {
    this.log = logger.child({ component: 'handshake' });
  }

  async hello(connection: AgentConnection, frame: HelloFrame, now: number = Date.now()): Promise<void> {
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(frame.protocol)) {
      connection.fail(frame.id, 'E_UNSUPPORTED_VERSION', `protocol ${frame.protocol} is not supported; this gateway speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`, {
        requested: frame.protocol,
        supported: [...SUPPORTED_PROTOCOL_VERSIONS],
      });
      // A "stop" close code: reconnecting with the same client would fail the same way.
      connection.close(CLOSE_CODES.UNSUPPORTED_VERSION, 'unsupported protocol version');
      return;
    }
    if (this.drain.draining) {
      connection.sendError(frame.id, makeError('E_SHUTTING_DOWN', 'this gateway is shutting down; reconnect', undefined, { retryAfterMs: 1000 }));
      connection.close(CLOSE_CODES.GOING_AWAY, 'gateway shutting down');
      return;
    }

    connection.helloInFlight = true;
    let session: SessionOpening;
    try {
      session = await this.openSession(connection, frame.session_id, now);
    } catch (error) {
      connection.helloInFlight = false;
      connection.log.error({ error }, 'opening the session failed');
      connection.sendError(frame.id, makeError('E_UNAVAILABLE', 'the session could not be opened; send hello again shortly', undefined, { retryAfterMs: 1000 }));
      return;
    }
    if (session.kind === 'limited') {
      connection.helloInFlight = false;
      this.refuse(connection, frame.id, session.error);
      return;
    }
    connection.helloInFlight = false;
    // The socket may have closed, or the gateway started draining, while Redis answered.
    if (connection.state !== 'awaiting_hello' || !connection.isOpen) return;
    if (session.kind === 'foreign') {
      connection.fail(frame.id, 'E_INTERNAL', 'no session could be opened; send hello again');
      return;
    }

    connection.sessionId = session.sessionId;
    connection.startPushesAfter(session.kind === 'resumed' ? (frame.last_seq ?? 0) : 0);
    connection.state = 'ready';
    connection.clearHelloTimer();

    const replaced = this.registry.promote(connection);
    if (replaced !== undefined) {
      replaced.log.info({ sessionId: replaced.sessionId, replacedBy: connection.connectionId }, 'connection replaced: its session resumed on a newer one');
      replaced.close(CLOSE_CODES.SESSION_REPLACED, 'the session resumed on a newer connection');
    }

    await this.presence.connected(connection, now);
    connection.send({
      type: 'welcome',
      id: frame.id,
      protocol: PROTOCOL_VERSION,
      session_id: session.sessionId,
      resumed: session.kind === 'resumed',
      agent: this.welcomeAgent(connection),
      gateway_id: this.config.gatewayId,
      heartbeat_ms: this.config.heartbeatMs,
      limits: {
        max_frame_bytes: this.config.maxFrameBytes,
        max_in_flight: this.config.maxInFlight,
        hook_deadline_ms: this.config.hookDeadlineMs,
        max_hook_deadline_ms: maxHookDeadline(this.config),
      },
    });
    connection.log.info(
      { sessionId: session.sessionId, resumed: session.kind === 'resumed', client: `${frame.client.name}/${frame.client.version}` },
      'agent connected',
    );
    // After the welcome, never before: a client ignores pushes until it is welcomed. Whatever
    // was not acknowledged is delivered again, which also re-delivers requests addressed to
    // the agent and the final states of the requests it sent.
    this.inbox.connected(connection);
    // And the signals operators pushed that it has not answered yet (docs/spec/spectrum-and-signals.md#operator-signals).
    this.operatorSignals.connected(connection);
  }

  private refuse(connection: AgentConnection, frameId: string, error: AhpError): void {
    connection.log.info({ code: error.code, subject: error.details?.['subject'], retryAfterMs: error.retry_after_ms }, 'hello refused by a rate limit');
    connection.sendError(frameId, error);
  }

  /** The connection's identity, with its team's lead (read from the tokens file as it is now). */
  private welcomeAgent(connection: AgentConnection): WelcomeAgent {
    const identity = connection.agent.identity;
    const lead = identity.team === undefined ? undefined : this.auth.teamLeadOf(identity.team);
    return lead === undefined ? identity : { ...identity, lead };
  }

  /**
   * Resumes the requested session when it is this agent's; otherwise starts a new one, counted
   * against the agent's new-session limit (SessionOpener). A session id of another agent is not
   * an error the client could act on (and saying so would confirm the id exists), so it simply
   * gets a fresh session, `resumed: false`.
   */
  private async openSession(connection: AgentConnection, requested: string | undefined, now: number): Promise<SessionOpening> {
    const identity = connection.agent.identity;
    const first = await this.sessions.open(identity, requested, randomUUID(), now);
    if (first.kind !== 'foreign' || requested === undefined) return first;
    this.log.warn({ agentId: identity.id, requestedSession: requested }, 'hello asked to resume a session of another agent; starting a new one');
    return this.sessions.open(identity, undefined, randomUUID(), now);
  }
}
