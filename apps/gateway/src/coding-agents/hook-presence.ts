import { Inject, Injectable } from '@nestjs/common';
import type { AgentIdentity, FleetAgent, FleetClient } from '@ahp/protocol';
import type { FleetStore, PresenceStore } from '@ahp/store';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { FLEET_STORE, PRESENCE_STORE } from '../store/store.tokens.js';

/** A session's presence is written at most this often by one gateway (every hook of a busy session would otherwise cost two writes). */
export const PRESENCE_REFRESH_MS = 5_000;
/** Sessions whose last write this gateway remembers; beyond it the oldest is forgotten (it is then written again on its next hook). */
const MAX_REMEMBERED_SESSIONS = 10_000;

/** Where a hook stands in its session's life: its start, its end, or anything in between. */
export type SessionPhase = 'start' | 'end' | 'during';

/**
 * Coding agents' sessions in the fleet (Claude Code, Codex, Copilot). They hold no connection, so
 * their hooks stand in for one: the first hook a gateway sees of a session (and a session start
 * always) writes the agent's presence entry and fleet row — marked with the agent's kind in
 * `client` — the later ones refresh the entry at most every {@link PRESENCE_REFRESH_MS}, and a
 * session end removes it. The entry lives AHP_CLAUDE_CODE_PRESENCE_TTL_MS after the last refresh,
 * so a session that goes quiet (closed terminal, no session end) ages out to `offline` on its own;
 * its status in between (`working`, `idle` after a stop or 30 s without a hook) follows its hooks
 * (fleet-activity.service.ts).
 *
 * The memory kept here is only a throttle (which sessions were written lately): presence and the
 * row live in Redis. Every write is best effort — the fleet is a view, and a hook is never
 * refused or delayed beyond the write because of it.
 */
@Injectable()
export class HookPresence {
  private readonly written = new Map<string, number>();
  private readonly log: JsonLogger;

  constructor(
    @Inject(PRESENCE_STORE) private readonly presence: PresenceStore,
    @Inject(FLEET_STORE) private readonly fleet: FleetStore,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'hook-presence' });
  }

  /** Records that `agent`, a coding agent of kind `client`, sent a hook at `phase` of AHP session `sessionId`. Never throws. */
  async seen(agent: AgentIdentity, sessionId: string, phase: SessionPhase, client: FleetClient, now: number = Date.now()): Promise<void> {
    try {
      if (phase === 'end') {
        this.written.delete(sessionId);
        await this.presence.disconnect(agent.id, sessionId, this.config.gatewayId);
        await this.publish(await this.fleet.disconnect({ agentId: agent.id, gatewayId: this.config.gatewayId, now }));
        return;
      }
      const last = this.written.get(sessionId);
      if (phase !== 'start' && last !== undefined && now - last < PRESENCE_REFRESH_MS) return;
      this.remember(sessionId, now);
      const ttl = this.config.claudeCodePresenceTtlMs;
      // A refresh of the session's own entry is enough while it is the agent's current one.
      if (phase !== 'start' && last !== undefined && (await this.presence.touch([{ agentId: agent.id, sessionId, at: now }], ttl, now)) > 0) return;
      const at = new Date(now).toISOString();
      await this.presence.connect({ agent, session_id: sessionId, gateway_id: this.config.gatewayId, connected_at: at, last_activity_at: at }, ttl, now);
      await this.publish(await this.fleet.connect({ agent, gatewayId: this.config.gatewayId, sessionId, connectedAt: now, now, client }));
    } catch (error) {
      this.log.warn({ agentId: agent.id, sessionId, client, phase, error }, 'recording the coding agent session in the fleet failed');
    }
  }

  private remember(sessionId: string, now: number): void {
    this.written.delete(sessionId);
    this.written.set(sessionId, now);
    if (this.written.size > MAX_REMEMBERED_SESSIONS) {
      const oldest = this.written.keys().next().value;
      if (oldest !== undefined) this.written.delete(oldest);
    }
  }

  private async publish(row: FleetAgent | null): Promise<void> {
    if (row !== null) await this.fleet.publishLive([{ kind: 'agent', agent: row }]);
  }
}
