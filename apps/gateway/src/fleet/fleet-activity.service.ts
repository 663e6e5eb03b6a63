import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { awaitingApproval, type FleetAgent, type FleetLastDecision, type FleetLastHook, type FleetLastRefusal, type OperatorLiveEvent } from '@ahp/protocol';
import { StoreDataError, StoreInputError, type FleetStore } from '@ahp/store';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { GatewayEvents } from '../events/gateway-events.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { FLEET_STORE } from '../store/store.tokens.js';
import { LatencyWindow } from './latency-window.js';

/** How often pending activity is written: the fleet view is at most this much behind. */
export const FLEET_FLUSH_MS = 500;

/** What changed about one agent since the last flush. */
interface PendingActivity {
  lastHook?: FleetLastHook;
  lastDecision?: FleetLastDecision;
  lastRefusal?: FleetLastRefusal;
  inFlightChanged: boolean;
  lastSeenAt: number;
}

/**
 * Keeps the fleet rows of this gateway's agents and the operators' live feed up to date.
 *
 * Connections and disconnections are written at once (rare, and the console should see them
 * immediately). Hooks and decisions are the hot path: they only mark the agent dirty in memory,
 * and a flush every {@link FLEET_FLUSH_MS} writes each dirty agent once, all of them in one round
 * trip — so a busy agent costs the same few Redis commands per flush whatever its hook rate, and
 * the live events are the rows that write returns (no read-back). What is pending in memory when
 * the process dies is only a view (the hooks themselves are in Redis); the rows catch up with the
 * agent's next hook on whichever gateway it reconnects to.
 *
 * It also keeps this gateway's decision latency window for the health view.
 */
@Injectable()
export class FleetActivityService implements OnModuleInit, OnModuleDestroy {
  readonly latency = new LatencyWindow();
  private readonly log: JsonLogger;
  private readonly pending = new Map<string, PendingActivity>();
  /** Hooks awaiting a decision per agent (ids, so a re-sent hook is not counted twice). */
  private readonly inFlight = new Map<string, Set<string>>();
  private liveQueue: OperatorLiveEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    @Inject(FLEET_STORE) private readonly fleet: FleetStore,
    @Inject(GatewayEvents) private readonly events: GatewayEvents,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'fleet' });
  }

  onModuleInit(): void {
    this.unsubscribe.push(
      this.events.on('agentConnected', ({ agent, sessionId, connectedAt, at }) => {
        this.inFlight.delete(agent.id);
        this.pending.delete(agent.id);
        void this.write(this.fleet.connect({ agent, gatewayId: this.config.gatewayId, sessionId, connectedAt, now: at }), agent.id, 'connect');
      }),
      this.events.on('agentDisconnected', ({ agent, wasCurrent, at }) => {
        if (!wasCurrent) return;
        this.inFlight.delete(agent.id);
        this.pending.delete(agent.id);
        void this.write(this.fleet.disconnect({ agentId: agent.id, gatewayId: this.config.gatewayId, now: at }), agent.id, 'disconnect');
      }),
      this.events.on('hookReceived', ({ agentId, hookId, trigger, tool, at }) => {
        const ids = this.inFlight.get(agentId) ?? new Set<string>();
        ids.add(hookId);
        this.inFlight.set(agentId, ids);
        const entry = this.dirty(agentId, at);
        entry.lastHook = { hook_id: hookId, trigger, ...(tool === undefined ? {} : { tool }), at: new Date(at).toISOString() };
        entry.inFlightChanged = true;
      }),
      this.events.on('decisionDelivered', ({ agentId, decision, latencyMs, at }) => {
        if (latencyMs !== undefined) this.latency.record(latencyMs, at);
        const ids = this.inFlight.get(agentId);
        ids?.delete(decision.hook_id);
        if (ids?.size === 0) this.inFlight.delete(agentId);
        const entry = this.dirty(agentId, at);
        const waiting = awaitingApproval(decision);
        entry.lastDecision = {
          hook_id: decision.hook_id,
          allowed: decision.allowed,
          intensity: decision.intensity,
          decided_by: decision.decided_by,
          at: decision.decided_at,
          ...(waiting === undefined ? {} : { awaiting_approval: { request_id: waiting.request_id, deadline: waiting.deadline } }),
        };
        entry.inFlightChanged = true;
      }),
      this.events.on('hookRefused', ({ agentId, hookId, trigger, error, at }) => {
        const details = error.details ?? {};
        const requestId = details['request_id'];
        const signalIds = details['signal_ids'];
        this.dirty(agentId, at).lastRefusal = {
          hook_id: hookId,
          trigger,
          code: error.code,
          ...(typeof requestId === 'string' ? { request_id: requestId } : {}),
          ...(Array.isArray(signalIds) ? { signal_ids: signalIds.filter((id): id is string => typeof id === 'string').slice(0, 20) } : {}),
          at: new Date(at).toISOString(),
        };
      }),
      this.events.on('timelineRecorded', ({ entry }) => {
        this.liveQueue.push({ kind: 'timeline', entry });
      }),
    );
    this.timer = setInterval(() => void this.flush(), FLEET_FLUSH_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    for (const off of this.unsubscribe.splice(0)) off();
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** Hooks awaiting a decision on this gateway, per agent (for tests and health). */
  hooksInFlight(agentId: string): number {
    return this.inFlight.get(agentId)?.size ?? 0;
  }

  /** Writes every dirty agent once and publishes the resulting rows; one flush at a time. */
  flush(): Promise<void> {
    this.flushing ??= this.flushNow().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async flushNow(): Promise<void> {
    const batch = [...this.pending];
    this.pending.clear();
    const live = this.liveQueue;
    this.liveQueue = [];
    const inputs = batch.map(([agentId, entry]) => ({
      agentId,
      now: entry.lastSeenAt,
      ...(entry.lastHook === undefined ? {} : { lastHook: entry.lastHook }),
      ...(entry.lastDecision === undefined ? {} : { lastDecision: entry.lastDecision }),
      ...(entry.lastRefusal === undefined ? {} : { lastRefusal: entry.lastRefusal }),
      ...(entry.inFlightChanged ? { hooksInFlight: this.hooksInFlight(agentId) } : {}),
    }));
    let rows: (FleetAgent | null)[];
    try {
      // Every dirty agent in one round trip (one script call on a single Redis).
      rows = await this.fleet.activityBatch(this.config.gatewayId, inputs);
    } catch (batchError) {
      if (!(batchError instanceof StoreInputError || batchError instanceof StoreDataError)) {
        // Redis itself failed: the next flush carries these agents' next activity.
        this.log.warn({ agents: inputs.length, error: batchError }, 'writing fleet activity failed');
        rows = [];
      } else {
        // One agent's bad input or row must not cost the others theirs: each alone, failures
        // logged per agent. The merge is idempotent: rows the failed batch wrote are written again as they are.
        rows = await Promise.all(
          inputs.map(async (input) => {
            try {
              return await this.fleet.activity({ ...input, gatewayId: this.config.gatewayId });
            } catch (error) {
              this.log.warn({ agentId: input.agentId, error }, 'writing fleet activity failed');
              return null;
            }
          }),
        );
      }
    }
    for (const row of rows) if (row !== null) live.push({ kind: 'agent', agent: row });
    await this.publish(live);
  }

  private dirty(agentId: string, at: number): PendingActivity {
    let entry = this.pending.get(agentId);
    if (entry === undefined) {
      entry = { inFlightChanged: false, lastSeenAt: at };
      this.pending.set(agentId, entry);
    }
    entry.lastSeenAt = Math.max(entry.lastSeenAt, at);
    return entry;
  }

  private async write(update: Promise<FleetAgent | null>, agentId: string, what: string): Promise<void> {
    try {
      const row = await update;
      if (row !== null) await this.publish([{ kind: 'agent', agent: row }]);
    } catch (error) {
      this.log.warn({ agentId, error }, `writing the fleet ${what} failed`);
    }
  }

  private async publish(events: OperatorLiveEvent[]): Promise<void> {
    if (events.length === 0) return;
    try {
      await this.fleet.publishLive(events);
    } catch (error) {
      this.log.warn({ events: events.length, error }, 'publishing live events failed');
    }
  }
}
