import { Inject, Injectable } from '@nestjs/common';
import type { AgentIdentity, AhpError } from '@ahp/protocol';
import type { SessionStore } from '@ahp/store';
import { GATEWAY_CONFIG } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { RateLimitsService } from '../rate-limit/rate-limits.service.js';
import { SESSION_STORE } from '../store/store.tokens.js';

/** What {@link SessionOpener.open} did. */
export type SessionOpening =
  | { readonly kind: 'created'; readonly sessionId: string }
  | { readonly kind: 'resumed'; readonly sessionId: string }
  /** The requested session is another agent's; nothing was written or counted. */
  | { readonly kind: 'foreign' }
  /** A new session was due, and the agent's new-session limit refused it: nothing was written. */
  | { readonly kind: 'limited'; readonly error: AhpError };

/**
 * Opens an agent's session for every path that starts one — `hello`, a hook frame naming another
 * session of its agent, the coding agents' hook routes (a session per the agent's own session
 * id), the MCP gateway (a session per `X-AHP-Session` label) — so that every new session is
 * counted against the agent's new-session limit (`AHP_AGENT_NEW_SESSIONS_PER_MIN` / `_BURST`)
 * whichever door it came through. A resumed session is free.
 *
 * Resume first (writes nothing when the session does not exist), then take a token, then create:
 * a session is only ever written after its token was taken, so a burst — over any number of
 * gateways — creates at most what the bucket allows. Two concurrent first hooks of one session
 * both take a token and one of them finds the session created (`resumed`): the limit can count a
 * session twice, never let one through uncounted. The limiter fails open when Redis cannot be
 * asked; the session cannot be written then either.
 */
@Injectable()
export class SessionOpener {
  constructor(
    @Inject(SESSION_STORE) private readonly sessions: SessionStore,
    @Inject(RateLimitsService) private readonly rateLimits: RateLimitsService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /**
   * Resumes `requested` when it is `agent`'s; otherwise (none asked for, unknown or expired)
   * creates `newId` if the agent's new-session limit allows. For a derived session id (hook
   * routes, MCP) `requested` and `newId` are the same.
   * `foreign` also when `newId` is another agent's (a fresh random id cannot be). Redis errors
   * are thrown.
   */
  async open(agent: AgentIdentity, requested: string | undefined, newId: string, now: number = Date.now()): Promise<SessionOpening> {
    const ttlMs = this.config.sessionTtlMs;
    if (requested !== undefined) {
      const resumed = await this.sessions.resume(agent.id, requested, now, ttlMs);
      if (resumed === 'resumed') return { kind: 'resumed', sessionId: requested };
      if (resumed === 'foreign') return { kind: 'foreign' };
    }
    const limited = await this.rateLimits.checkNewSession(agent.id);
    if (limited !== null) return { kind: 'limited', error: limited };
    const created = await this.sessions.create(agent.id, newId, now, ttlMs);
    if (created === 'foreign') return { kind: 'foreign' };
    return { kind: created, sessionId: newId };
  }
}
