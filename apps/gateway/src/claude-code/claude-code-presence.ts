import { Inject, Injectable } from '@nestjs/common';
import type { AgentIdentity, ClaudeCodeEvent, FleetAgent } from '@ahp/protocol';
import type { FleetStore, PresenceStore } from '@ahp/store';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { FLEET_STORE, PRESENCE_STORE } from '../store/store.tokens.js';

/** A session's presence is written at most this often by one gateway (every hook of a busy session would otherwise cost two writes). */
export const CLAUDE_CODE_REFRESH_MS = 5_000;
/** Sessions whose last write this gateway remembers; beyond it the oldest is forgotten (it is then written again on its next hook). */
const MAX_REMEMBERED_SESSIONS = 10_000;

/**
 * Claude Code sessions in the fleet. Claude Code has no connection to hold, so its hooks stand in
 * for one: the first hook a gateway sees of a session (and SessionStart always) writes the agent's
 * presence entry and fleet row — marked `client: claude-code` — the later ones refresh the entry
 * at most every {@link CLAUDE_CODE_REFRESH_MS}, and SessionEnd removes it. The entry lives
 * AHP_CLAUDE_CODE_PRESENCE_TTL_MS after the last refresh, so a session that goes quiet (closed
 * terminal, no SessionEnd) ages out to `offline` on its own; its status in between (`working`,
 * `idle` after a Stop or 30 s without a hook) follows its hooks (fleet-activity.service.ts).
 *
 * The memory kept here is only a throttle (which sessions were written lately): presence and the
 * row live in Redis. Every write is best effort — the fleet is a view, and a hook is never
 * refused or delayed beyond the write because of it.
 */
@Injectable()
export class ClaudeCodePresence {
  private readonly written = new Map<string, number>();
  private readonly log: JsonLogger;

  constructor(
    @Inject(PRESENCE_STORE) private readonly presence: PresenceStore,
    @Inject(FLEET_STORE) private readonly fleet: FleetStore,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'claude-code-presence' });
  }

  /** Records that `agent` sent hook `event` in AHP session `sessionId`. Never throws. */
  async seen(agent: AgentIdentity, sessionId: string, event: ClaudeCodeEvent, now: number = Date.now()): Promise<void> {
    try {
      if (event === 'SessionEnd') {
        this.written.delete(sessionId);
        await this.presence.disconnect(agent.id, sessionId, this.config.gatewayId);
        await this.publish(await this.fleet.disconnect({ agentId: agent.id, gatewayId: this.config.gatewayId, now }));
        return;
      }
      const last = this.written.get(sessionId);
      if (event !== 'SessionStart' && last !== undefined && now - last < CLAUDE_CODE_REFRESH_MS) return;
      this.remember(sessionId, now);
      const ttl = this.config.claudeCodePresenceTtlMs;
      // A refresh of the session's own entry is enough while it is the agent's current one.
      if (event !== 'SessionStart' && last !== undefined && (await this.presence.touch([{ agentId: agent.id, sessionId, at: now }], ttl, now)) > 0) return;
      const at = new Date(now).toISOString();
      await this.presence.connect({ agent, session_id: sessionId, gateway_id: this.config.gatewayId, connected_at: at, last_activity_at: at }, ttl, now);
      await this.publish(await this.fleet.connect({ agent, gatewayId: this.config.gatewayId, sessionId, connectedAt: now, now, client: 'claude-code' }));
    } catch (error) {
      this.log.warn({ agentId: agent.id, sessionId, event, error }, 'recording the Claude Code session in the fleet failed');
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
