import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { GatewayInfo, PresenceEntry } from '@ahp/protocol';
import type { PresenceStore, PresenceTouch } from '@ahp/store';
import type { AgentConnection } from '../connections/agent-connection.js';
import { ConnectionRegistry } from '../connections/connection-registry.js';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { GatewayEvents } from '../events/gateway-events.js';
import { DrainState } from '../lifecycle/drain-state.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { PRESENCE_STORE } from '../store/store.tokens.js';

/**
 * How often the refreshes gathered from pongs and frames are written, ms, at most; a short
 * presence TTL flushes more often (a sixth of the TTL), so a due refresh always lands in time.
 */
const TOUCH_FLUSH_MS = 1000;

/**
 * Presence of this gateway's agents and of the gateway itself, for the console and for routing.
 *
 * Every write is best effort: presence is a view that expires on its own (entries carry a TTL),
 * so a failed write is logged and never fails the agent's request. The agent entry is written at
 * welcome, refreshed on activity and on pong and removed on close — only by the connection that
 * is still the agent's current one, so a replaced or late-closing connection cannot erase its
 * successor's entry. A refresh is due at most every few seconds per connection (a busy agent
 * costs one per interval, not one per frame), and the due refreshes of all connections are
 * written together once a second ({@link TOUCH_FLUSH_MS}), in one script call per few hundred
 * agents: with 20,000 agents pinged every 15 s, one call per pong was 1,300 Redis calls a second
 * on the connection that carries the hooks.
 */
@Injectable()
export class PresenceService implements OnModuleInit, OnModuleDestroy {
  private readonly startedAt = new Date().toISOString();
  private readonly log: JsonLogger;
  private readonly touchEveryMs: number;
  private readonly heartbeatEveryMs: number;
  private readonly touchFlushEveryMs: number;
  private timer: NodeJS.Timeout | undefined;
  private touchTimer: NodeJS.Timeout | undefined;
  /** Connections whose entry is due for a refresh, with the time of the activity that made it due. */
  private readonly dueTouches = new Map<AgentConnection, number>();
  private readonly writes = new Set<Promise<void>>();
  private stopped = false;
  private heartbeatSoon: NodeJS.Immediate | undefined;

  constructor(
    @Inject(PRESENCE_STORE) private readonly presence: PresenceStore,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) logger: JsonLogger,
    @Inject(ConnectionRegistry) private readonly registry: ConnectionRegistry,
    @Inject(DrainState) private readonly drain: DrainState,
    @Inject(GatewayEvents) private readonly events: GatewayEvents,
  ) {
    this.log = logger.child({ component: 'presence' });
    // A third of the TTL leaves two refreshes of slack before an entry expires.
    this.touchEveryMs = Math.min(5000, Math.floor(config.presenceTtlMs / 3));
    this.heartbeatEveryMs = Math.max(500, Math.min(5000, Math.floor(config.presenceTtlMs / 3)));
    this.touchFlushEveryMs = Math.max(50, Math.min(TOUCH_FLUSH_MS, Math.floor(config.presenceTtlMs / 6)));
  }

  async onModuleInit(): Promise<void> {
    await this.heartbeat();
    this.timer = setInterval(() => void this.heartbeat(), this.heartbeatEveryMs);
    this.timer.unref();
    this.touchTimer = setInterval(() => this.flushTouches(), this.touchFlushEveryMs);
    this.touchTimer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (this.touchTimer !== undefined) clearInterval(this.touchTimer);
    this.touchTimer = undefined;
    if (this.heartbeatSoon !== undefined) clearImmediate(this.heartbeatSoon);
    this.heartbeatSoon = undefined;
  }

  /** Writes the agent's entry after its welcome; awaited so the entry exists when the agent is told it is connected. */
  async connected(connection: AgentConnection, now: number = Date.now()): Promise<void> {
    if (connection.sessionId === undefined) return;
    const at = new Date(now).toISOString();
    connection.lastTouchAt = now;
    await this.track(
      this.presence.connect(
        {
          agent: connection.agent.identity,
          session_id: connection.sessionId,
          gateway_id: this.config.gatewayId,
          connected_at: new Date(connection.connectedAt).toISOString(),
          last_activity_at: at,
        },
        this.config.presenceTtlMs,
        now,
      ),
      connection.log,
      'presence connect failed',
      { sessionId: connection.sessionId },
    );
    this.connectionsChanged();
    this.events.emit('agentConnected', { agent: connection.agent.identity, sessionId: connection.sessionId, connectedAt: connection.connectedAt, at: now });
  }

  /**
   * Marks the agent's entry for a refresh, at most once per interval per connection; the next
   * {@link flushTouches} writes it. Never waits.
   */
  touch(connection: AgentConnection, now: number = Date.now()): void {
    if (connection.sessionId === undefined || connection.state !== 'ready') return;
    if (now - connection.lastTouchAt < this.touchEveryMs) return;
    connection.lastTouchAt = now;
    this.dueTouches.set(connection, now);
  }

  /** Writes the refreshes that came due since the last flush (one store call for all of them). */
  flushTouches(now: number = Date.now()): void {
    if (this.dueTouches.size === 0 || this.stopped) return;
    const touches: PresenceTouch[] = [];
    for (const [connection, at] of this.dueTouches) {
      if (connection.sessionId !== undefined && connection.state === 'ready') touches.push({ agentId: connection.agentId, sessionId: connection.sessionId, at });
    }
    this.dueTouches.clear();
    if (touches.length === 0) return;
    void this.track(
      this.presence.touch(touches, this.config.presenceTtlMs, now).then(() => undefined),
      this.log,
      'presence touch failed',
      { agents: touches.length },
    );
  }

  /**
   * Removes the agent's entry when `wasCurrent` (this was its session's current connection here).
   * Presence shows one entry per agent, its newest connection; when another session of the same
   * agent is still connected here (`remaining`), that one becomes the agent's entry again.
   */
  async disconnected(connection: AgentConnection, wasCurrent: boolean, remaining?: AgentConnection): Promise<void> {
    this.dueTouches.delete(connection);
    this.connectionsChanged();
    this.events.emit('agentDisconnected', { agent: connection.agent.identity, sessionId: connection.sessionId, wasCurrent, at: Date.now() });
    if (!wasCurrent || connection.sessionId === undefined) return;
    await this.track(
      this.presence.disconnect(connection.agentId, connection.sessionId, this.config.gatewayId),
      connection.log,
      'presence disconnect failed',
      { sessionId: connection.sessionId },
    );
    if (remaining !== undefined) await this.connected(remaining);
  }

  /**
   * Publishes the gateway's entry soon after its connection count changed, so the console does not
   * show a stale count for a whole heartbeat interval. Changes in one turn of the event loop
   * share one write.
   */
  connectionsChanged(): void {
    if (this.stopped || this.heartbeatSoon !== undefined) return;
    this.heartbeatSoon = setImmediate(() => {
      this.heartbeatSoon = undefined;
      void this.heartbeat();
    });
  }

  /** Publishes this gateway's GatewayInfo (connection count, draining flag). */
  async heartbeat(now: number = Date.now()): Promise<void> {
    if (this.stopped) return;
    try {
      await this.presence.heartbeatGateway(
        {
          gateway_id: this.config.gatewayId,
          started_at: this.startedAt,
          last_seen_at: new Date(now).toISOString(),
          connections: this.registry.size,
          draining: this.drain.draining,
        },
        this.config.presenceTtlMs,
        now,
      );
    } catch (error) {
      this.log.warn({ error }, 'gateway heartbeat failed');
    }
  }

  /** Who is connected where, across all gateways, and which gateways are alive (for operators). */
  async view(now: number = Date.now()): Promise<{ agents: PresenceEntry[]; gateways: GatewayInfo[] }> {
    const [agents, gateways] = await Promise.all([this.presence.list(now), this.presence.listGateways(now)]);
    return { agents, gateways };
  }

  /**
   * Stops the heartbeat, waits for presence writes still under way and removes this gateway's
   * entry. Called by the shutdown sequence before Redis closes.
   */
  async stop(): Promise<void> {
    this.onModuleDestroy();
    this.stopped = true;
    // Refreshes still due are dropped: the entries are removed as the connections close, or expire.
    this.dueTouches.clear();
    await Promise.allSettled([...this.writes]);
    try {
      await this.presence.removeGateway(this.config.gatewayId);
    } catch (error) {
      this.log.warn({ error }, 'removing the gateway entry failed');
    }
  }

  private track(write: Promise<void>, log: JsonLogger, message: string, fields: Record<string, unknown>): Promise<void> {
    const settled = write.catch((error: unknown) => {
      log.warn({ ...fields, error }, message);
    });
    this.writes.add(settled);
    void settled.finally(() => this.writes.delete(settled));
    return settled;
  }
}
