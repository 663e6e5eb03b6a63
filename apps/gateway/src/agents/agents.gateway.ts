import type { IncomingMessage } from 'node:http';
import { Inject, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { WebSocketGateway, type OnGatewayConnection } from '@nestjs/websockets';
import { CLOSE_CODES, FRAME_SHAPE_LIMITS, makeError, measureJsonShape, parseClientFrame, type AhpError, type GoawayFrame } from '@ahp/protocol';
import type { RawData, WebSocket } from 'ws';
import { AgentAuthService } from '../auth/agent-auth.service.js';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { GatewayEvents } from '../events/gateway-events.js';
import { HooksService } from '../hooks/hooks.service.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { PresenceService } from '../presence/presence.service.js';
import { AGENTS_WS_PATH } from '../ws/agent-ws.adapter.js';
import { takeUpgradeAgent } from '../ws/upgrade-context.js';
import { AgentConnection } from '../connections/agent-connection.js';
import { ConnectionRegistry } from '../connections/connection-registry.js';
import { FrameRouter } from './frame-router.js';
import { HeartbeatWheel } from './heartbeat-wheel.js';
import { InputBudgets, VALUE_WEIGHT_BYTES, type InputOverrun } from '../connections/input-budget.js';

/** About how often the heartbeat wakes up to ping its next slice of connections, ms. */
const HEARTBEAT_TICK_MS = 100;

/** How often budgets that have refilled are forgotten, ms. */
const BUDGET_SWEEP_MS = 10_000;

/** The size of a ws message in bytes, whatever buffer shape ws delivered it in, without copying it. */
function sizeOf(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((total, chunk) => total + chunk.length, 0);
  return data.byteLength;
}

/** The text of a ws message, whatever buffer shape ws delivered it in. */
function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/**
 * The agent WebSocket endpoint (`/v1/agents`). Thin on purpose: it owns the socket's life —
 * message listener, hello deadline, heartbeat, close — and hands every parsed frame to the
 * {@link FrameRouter}.
 *
 * Every message is paid for before any work is done on it: it is charged to the agent's input
 * budget ({@link InputBudgets}: messages and bytes per second over all its connections here) by
 * its size, then — once a cheap scan has counted its JSON values — by 16 bytes per value when that
 * is more, all before `JSON.parse` runs. An agent over its budget has the connection that overran
 * closed with 4006 `CONNECTION_RATE_LIMITED` (after an `E_RATE_LIMITED` error frame saying why),
 * and nothing more is read from it.
 *
 * Every text message within budget is parsed with the protocol's `parseClientFrame`, and every
 * bad one is answered with an `error` frame carrying its typed code and, when it could be read,
 * the frame's id; the connection stays open — until it has had more refused frames than
 * `REFUSED_FRAME_BURST` allows, when it is closed with 4400 `PROTOCOL_VIOLATION`. Binary messages
 * are answered `E_BAD_FRAME`. A message over `AHP_MAX_FRAME_BYTES` but within twice that is read,
 * discarded unread and answered `E_FRAME_TOO_LARGE`; a larger one never reaches this class: ws
 * closes the connection with 1009 while receiving it, since buffering it is exactly what the
 * limit prevents. No input can throw out of a listener: each frame is served inside its own
 * try/catch, and an unexpected failure is logged and answered `E_INTERNAL`.
 */
@WebSocketGateway({ path: AGENTS_WS_PATH })
export class AgentsGateway implements OnGatewayConnection, OnModuleInit, OnModuleDestroy {
  private readonly log: JsonLogger;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private budgetTimer: NodeJS.Timeout | undefined;
  private readonly budgets: InputBudgets;
  /** Every connection, dealt to a slice of the heartbeat period (see {@link heartbeat}). */
  private readonly heartbeatWheel: HeartbeatWheel<AgentConnection>;
  private unsubscribeReload: (() => void) | undefined;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) logger: JsonLogger,
    @Inject(ConnectionRegistry) private readonly registry: ConnectionRegistry,
    @Inject(FrameRouter) private readonly router: FrameRouter,
    @Inject(HooksService) private readonly hooks: HooksService,
    @Inject(PresenceService) private readonly presence: PresenceService,
    @Inject(AgentAuthService) private readonly auth: AgentAuthService,
    @Inject(GatewayEvents) private readonly events: GatewayEvents,
  ) {
    this.log = logger.child({ component: 'agents' });
    this.heartbeatWheel = new HeartbeatWheel(HeartbeatWheel.slicesFor(config.heartbeatMs, HEARTBEAT_TICK_MS));
    this.budgets = new InputBudgets(config.inputBudget);
  }

  onModuleInit(): void {
    const tickMs = this.config.heartbeatMs / this.heartbeatWheel.sliceCount;
    this.heartbeatTimer = setInterval(() => this.heartbeat(), tickMs);
    this.heartbeatTimer.unref();
    this.budgetTimer = setInterval(() => this.budgets.sweep(Date.now()), BUDGET_SWEEP_MS);
    this.budgetTimer.unref();
    this.unsubscribeReload = this.auth.onReload(() => this.closeRevoked());
  }

  onModuleDestroy(): void {
    this.stopHeartbeat();
    if (this.budgetTimer !== undefined) clearInterval(this.budgetTimer);
    this.budgetTimer = undefined;
    this.unsubscribeReload?.();
  }

  /** Called by Nest for every upgraded socket, with the upgrade request the adapter authenticated. */
  handleConnection(ws: WebSocket, request: IncomingMessage): void {
    try {
      const agent = takeUpgradeAgent(request);
      if (agent === undefined) {
        // Unreachable through the adapter (it refuses unauthenticated upgrades); kept so that a
        // misconfigured adapter fails closed instead of serving an anonymous socket.
        this.log.error({}, 'connection without an authenticated agent; closing');
        ws.close(CLOSE_CODES.UNAUTHORIZED, 'unauthenticated');
        return;
      }
      const connection = new AgentConnection(ws, agent, {
        maxBufferedBytes: this.config.maxBufferedBytes,
        slowConsumerCode: CLOSE_CODES.SLOW_CONSUMER,
        logger: this.log,
        onErrorSent: (code) => this.events.emit('errorSent', { agentId: agent.identity.id, code }),
      });
      const max = this.config.agentMaxConnections;
      if (max > 0 && this.registry.countOf(connection.agentId) >= max) {
        this.refuseOverCap(connection, max);
        return;
      }
      this.registry.add(connection);
      this.heartbeatWheel.add(connection);
      ws.on('message', (data: RawData, isBinary: boolean) => this.onMessage(connection, data, isBinary));
      ws.on('pong', () => {
        connection.alive = true;
        this.presence.touch(connection);
      });
      ws.once('close', (code: number, reason: Buffer) => this.onClose(connection, code, reason));
      connection.helloTimer = setTimeout(() => this.onHelloTimeout(connection), this.config.helloTimeoutMs);
      connection.helloTimer.unref();
      connection.log.debug({ remoteAddress: request.socket.remoteAddress }, 'websocket connected');
    } catch (error) {
      this.log.error({ error }, 'setting up a connection failed');
      ws.terminate();
    }
  }

  /** Sends `goaway` to every connection and stops accepting requests on them (shutdown). */
  goawayAll(reason: string, reconnectAfterMs: number): void {
    const frame: GoawayFrame = { type: 'goaway', reason, reconnect_after_ms: reconnectAfterMs };
    for (const connection of this.registry.list()) {
      connection.send(frame);
      connection.state = 'closing';
    }
  }

  /**
   * Closes every connection with `code` and waits until all are closed; a socket still open after
   * `timeoutMs` is destroyed.
   */
  async closeAll(code: number, reason: string, timeoutMs: number): Promise<void> {
    const connections = this.registry.list();
    for (const connection of connections) connection.close(code, reason);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const result = await Promise.race([Promise.all(connections.map((c) => c.closed)).then(() => 'closed' as const), timeout]);
    clearTimeout(timer);
    if (result === 'timeout') {
      for (const connection of connections) connection.terminate();
      await Promise.all(connections.map((c) => c.closed));
    }
  }

  stopHeartbeat(): void {
    if (this.heartbeatTimer !== undefined) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
  }

  private onMessage(connection: AgentConnection, data: RawData, isBinary: boolean, now: number = Date.now()): void {
    let frameId: string | null = null;
    try {
      // Closing (over budget, replaced, shut down): what the peer still sends is not read.
      if (!connection.isOpen) return;
      const size = sizeOf(data);
      if (!this.charge(connection, 1, size, now)) return;
      if (isBinary) {
        this.refuse(connection, null, makeError('E_BAD_FRAME', 'binary messages are not accepted; send each frame as a UTF-8 text message'), now);
        return;
      }
      // Discarded unread: its size (counted above) is all that is known of it.
      if (size > this.config.maxFrameBytes) {
        const error = makeError('E_FRAME_TOO_LARGE', `frame is larger than ${this.config.maxFrameBytes} bytes`, { max_frame_bytes: this.config.maxFrameBytes });
        this.refuse(connection, null, error, now);
        return;
      }
      const text = textOf(data);
      const shape = measureJsonShape(text, FRAME_SHAPE_LIMITS);
      if (!this.charge(connection, 0, shape.values * VALUE_WEIGHT_BYTES - size, now)) return;
      const parsed = parseClientFrame(text, this.config.maxFrameBytes, shape);
      if (!parsed.ok) {
        this.refuse(connection, parsed.id, parsed.error, now);
        return;
      }
      frameId = parsed.frame.id;
      const id = frameId;
      this.router.route(connection, parsed.frame).catch((error: unknown) => this.onUnexpected(connection, id, error));
    } catch (error) {
      this.onUnexpected(connection, frameId, error);
    }
  }

  /**
   * Charges a message to its agent's input budget; false when the budget did not hold it, and the
   * connection is then closed with 4006 and no longer read.
   */
  private charge(connection: AgentConnection, frames: number, bytes: number, now: number): boolean {
    if (frames <= 0 && bytes <= 0) return true;
    const overrun = this.budgets.charge(connection.agentId, frames, Math.max(0, bytes), now);
    if (overrun === null) return true;
    this.closeOverBudget(connection, overrun);
    return false;
  }

  /**
   * One connection more than `AHP_AGENT_MAX_CONNECTIONS` on this gateway: told why, then closed with
   * 4006 and never read. It is not registered, so it takes no heartbeat, presence or budget, and
   * the agent's other connections are untouched. Counted from the upgrade, before `hello`, so
   * sockets left idle count too (the handshake window closes those after AHP_HELLO_TIMEOUT_MS).
   */
  private refuseOverCap(connection: AgentConnection, max: number): void {
    connection.log.warn({ maxConnections: max }, 'agent at its connection limit on this gateway; refusing the new connection');
    connection.sendError(
      null,
      makeError(
        'E_RATE_LIMITED',
        `this agent already holds ${max} connections to this gateway (the most it may); the new one is closed (4006): close unused connections, or reconnect later`,
        { limit: { max_connections: max }, subject: 'connections' },
        { retryAfterMs: 5000 },
      ),
    );
    connection.closeAndStopReading(CLOSE_CODES.CONNECTION_RATE_LIMITED, 'too many connections for this agent');
    void connection.closed.then(() => connection.dispose());
  }

  private closeOverBudget(connection: AgentConnection, overrun: InputOverrun): void {
    const { framesPerSecond, frameBurst, bytesPerSecond, byteBurst } = this.config.inputBudget;
    const what = overrun === 'frames' ? `${framesPerSecond} frames a second (bursts of ${frameBurst})` : `${bytesPerSecond} bytes a second (bursts of ${byteBurst})`;
    connection.log.warn({ sessionId: connection.sessionId, overrun, framesPerSecond, frameBurst, bytesPerSecond, byteBurst }, 'agent over its input budget; closing the connection');
    connection.sendError(
      null,
      makeError(
        'E_RATE_LIMITED',
        `this agent sent more than ${what} to this gateway; the connection is closed (4006): reconnect after a longer backoff and send less`,
        { limit: { frames_per_second: framesPerSecond, frame_burst: frameBurst, bytes_per_second: bytesPerSecond, byte_burst: byteBurst }, overrun },
        { retryAfterMs: 5000 },
      ),
    );
    connection.closeAndStopReading(CLOSE_CODES.CONNECTION_RATE_LIMITED, `input budget exceeded (${overrun})`);
  }

  /**
   * Answers a frame that could not be read; a connection that keeps sending them is closed with
   * 4400 once it has had more than its refused-frame allowance.
   */
  private refuse(connection: AgentConnection, id: string | null, error: AhpError, now: number): void {
    connection.log.debug({ code: error.code, frameId: id }, 'bad frame');
    connection.sendError(id, error);
    if (connection.refusedFrames.take(1, now)) return;
    connection.log.warn({ sessionId: connection.sessionId, code: error.code }, 'too many refused frames; closing the connection');
    connection.closeAndStopReading(CLOSE_CODES.PROTOCOL_VIOLATION, 'too many invalid frames');
  }

  private onUnexpected(connection: AgentConnection, frameId: string | null, error: unknown): void {
    connection.log.error({ sessionId: connection.sessionId, frameId, error }, 'unexpected failure while serving a frame');
    try {
      connection.fail(frameId, 'E_INTERNAL', 'unexpected failure on the gateway; retrying is safe');
    } catch {
      // The socket is beyond answering; its close handler cleans up.
    }
  }

  private onClose(connection: AgentConnection, code: number, reason: Buffer): void {
    try {
      connection.dispose();
      this.heartbeatWheel.delete(connection);
      this.hooks.connectionClosed(connection);
      const wasCurrent = this.registry.remove(connection);
      void this.presence.disconnected(connection, wasCurrent, this.registry.latestOf(connection.agentId));
      connection.log.info({ sessionId: connection.sessionId, code, reason: reason.toString('utf8') }, 'websocket closed');
    } catch (error) {
      this.log.error({ agentId: connection.agentId, error }, 'cleaning up a closed connection failed');
    }
  }

  private onHelloTimeout(connection: AgentConnection): void {
    connection.helloTimer = undefined;
    if (connection.state !== 'awaiting_hello') return;
    connection.fail(null, 'E_HANDSHAKE', `no hello within ${this.config.helloTimeoutMs} ms`);
    connection.close(CLOSE_CODES.HANDSHAKE_TIMEOUT, 'no hello in time');
  }

  /**
   * ws' heartbeat pattern, one slice of the connections per tick so that each connection is still
   * pinged once per `AHP_HEARTBEAT_MS` but the pings (and the pongs with their presence refreshes)
   * are spread over the interval instead of arriving as one burst: a peer that has not answered
   * its previous ping, one interval ago, is presumed dead and terminated (no close handshake: a
   * dead peer would not complete it), the others are pinged.
   */
  private heartbeat(): void {
    for (const connection of this.heartbeatWheel.turn()) {
      try {
        if (!connection.alive) {
          connection.log.info({ sessionId: connection.sessionId }, 'no pong since the last ping; terminating');
          connection.terminate();
          continue;
        }
        connection.alive = false;
        connection.ws.ping();
      } catch (error) {
        connection.log.debug({ error }, 'ping failed');
      }
    }
  }

  /** After a tokens reload: connections whose token no longer counts are closed with a "stop" code. */
  private closeRevoked(): void {
    for (const connection of this.registry.list()) {
      const status = this.auth.tokenStatus(connection.agent);
      if (status === 'valid') continue;
      connection.log.info({ sessionId: connection.sessionId, status }, 'token no longer valid; closing');
      connection.fail(null, status === 'revoked' ? 'E_FORBIDDEN' : 'E_UNAUTHORIZED', 'the token of this connection is no longer valid');
      connection.close(status === 'revoked' ? CLOSE_CODES.FORBIDDEN : CLOSE_CODES.UNAUTHORIZED, 'token no longer valid');
    }
  }
}
