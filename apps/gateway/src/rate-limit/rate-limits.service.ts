import { Inject, Injectable } from '@nestjs/common';
import { makeError, type AhpError, type ClientFrameType } from '@ahp/protocol';
import { AGENT_RATE_KIND, createRateLimiter, leaseTokens, type LeaseRequest, type LeasingRateLimiter, type RateLimit, type RateLimiter, type RedisClient, type StoreKeys } from '@ahp/store';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { REDIS, STORE_KEYS } from '../store/store.tokens.js';

/**
 * The frames an agent's rate limit counts: the ones that make the control plane work (a hook
 * enqueues an evaluation, the others write to Redis). `inbox_ack` is free: acknowledging only ever
 * removes work — refusing it would make the gateway deliver the same messages again. `hello` is
 * free of this bucket too: an agent that spent it on a burst of hooks must still be able to
 * reconnect and collect their decisions. A `hello` that starts a new session is counted in its own
 * bucket instead ({@link RateLimitsService.checkNewSession}); a resuming one is bounded by the
 * input budget and the connection cap of the gateway it reaches.
 */
export const RATE_LIMITED_FRAME_TYPES: ReadonlySet<ClientFrameType> = new Set<ClientFrameType>([
  'hook',
  'request',
  'response',
  'cancel',
  'send',
  'signal_response',
  'event',
]);

/**
 * Per-agent and per-operator rate limits (`AHP_AGENT_RATE_PER_S` / `AHP_AGENT_BURST`,
 * `AHP_OPERATOR_RATE_PER_S` / `AHP_OPERATOR_BURST`), counted in Redis so they hold across
 * gateways. Each check answers `null` (go ahead) or the `E_RATE_LIMITED` error to send, with
 * `retry_after_ms` from the bucket. A rate of 0 switches a limit off; when Redis cannot be asked
 * the request goes ahead (the store's limiter fails open and logs it).
 *
 * Agents' frames spend tokens leased from their bucket (`AHP_AGENT_RATE_LEASE`): an agent that
 * keeps sending costs one Redis call per lease instead of one per frame, off the hook's path.
 * Operators' calls are few; each one asks Redis.
 */
/** Kind of the buckets of new sessions per agent (`<prefix>:ratelimit:{session:<agentId>}`). */
export const NEW_SESSION_RATE_KIND = 'session';

@Injectable()
export class RateLimitsService {
  private readonly agents: LeasingRateLimiter | undefined;
  private readonly operators: RateLimiter | undefined;
  /** New sessions per agent (`AHP_AGENT_NEW_SESSIONS_PER_MIN`): a fresh session resets nothing, but each costs Redis state. */
  private readonly newSessions: RateLimiter | undefined;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(REDIS) redis: RedisClient,
    @Inject(STORE_KEYS) keys: StoreKeys,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    const log = logger.child({ component: 'rate-limit' });
    const limiter = (kind: string, ratePerSecond: number, burst: number) =>
      ratePerSecond > 0 ? createRateLimiter({ redis, keys, kind, limit: { ratePerSecond, burst }, logger: log }) : undefined;
    const agents = limiter(AGENT_RATE_KIND, config.agentRatePerSecond, config.agentBurst);
    this.agents = agents === undefined ? undefined : leaseTokens(agents, { maxLease: config.agentRateLease });
    this.operators = limiter('operator', config.operatorRatePerSecond, config.operatorBurst);
    this.newSessions = limiter(NEW_SESSION_RATE_KIND, config.agentNewSessionsPerMinute / 60, config.agentNewSessionBurst);
  }

  /**
   * Whether the frame router takes a token for frames of this type. Hooks count too, but in the
   * open-hook script that records them (`hookCounting`), so the hook path has no extra round trip.
   */
  counts(type: ClientFrameType): boolean {
    return this.agents !== undefined && type !== 'hook' && RATE_LIMITED_FRAME_TYPES.has(type);
  }

  /**
   * How the hook store counts a hook of `agentId`: nothing when the agent's lease on this gateway
   * holds a token (spent now, counted in Redis when it was leased), else the limit and the lease
   * open-hook takes in the same script; `{}` when agents' limits are switched off. What the script
   * leased comes back through {@link creditAgentLease}.
   */
  hookCounting(agentId: string): { rateLimit?: RateLimit; rateLease?: LeaseRequest } {
    const agents = this.agents;
    if (agents === undefined || agents.spendLeased(agentId)) return {};
    return agents.lease === undefined ? { rateLimit: agents.limit } : { rateLimit: agents.limit, rateLease: agents.lease };
  }

  /** Tokens open-hook took for `agentId` beyond its hook's own, to spend on the agent's next frames. */
  creditAgentLease(agentId: string, tokens: number): void {
    this.agents?.credit(agentId, tokens);
  }

  /** The error for an agent's frame refused by its limit. */
  agentLimited(retryAfterMs: number): AhpError {
    return this.limitedError(this.agents, retryAfterMs, 'frames from this agent');
  }

  /** Takes one frame from the agent's bucket: null when allowed, else the error to answer the frame with. */
  checkAgent(agentId: string): Promise<AhpError | null> {
    return this.check(this.agents, agentId, 'frames from this agent');
  }

  /**
   * Takes one new session from the agent's new-session bucket, over all gateways: null when
   * allowed, else the `E_RATE_LIMITED` error (`details.subject` `session`) the refusal carries.
   * Asked by SessionOpener, before any session is written, whichever door starts it.
   */
  async checkNewSession(agentId: string): Promise<AhpError | null> {
    const limiter = this.newSessions;
    if (limiter === undefined) return null;
    const decision = await limiter.take(agentId);
    if (decision.allowed) return null;
    const perMinute = Math.round(limiter.limit.ratePerSecond * 60 * 1e6) / 1e6;
    return makeError(
      'E_RATE_LIMITED',
      `this agent started too many new sessions: at most ${perMinute} per minute (bursts of ${limiter.limit.burst}); a session that exists is not counted: resume one, or retry after ${decision.retryAfterMs} ms`,
      { limit: { sessions_per_minute: perMinute, burst: limiter.limit.burst }, subject: NEW_SESSION_RATE_KIND },
      { retryAfterMs: decision.retryAfterMs },
    );
  }

  /**
   * Takes one Claude Code hook from the agent's bucket — the same bucket (and lease) its
   * WebSocket frames and hooks spend — before the body is parsed: null when allowed, else the
   * error the refusal carries.
   */
  checkClaudeCodeHook(agentId: string): Promise<AhpError | null> {
    return this.check(this.agents, agentId, 'hooks from this agent');
  }

  /**
   * Takes one MCP message (`POST /v1/mcp/<server>`, each message of a batch) from the agent's
   * bucket — the bucket its hooks and frames spend — before the body is parsed.
   */
  checkMcpMessage(agentId: string): Promise<AhpError | null> {
    return this.check(this.agents, agentId, 'MCP requests from this agent');
  }

  /** Takes one call from the operator's bucket: null when allowed, else the error for a 429. */
  checkOperator(operatorId: string): Promise<AhpError | null> {
    return this.check(this.operators, operatorId, 'operator API calls by this operator');
  }

  private async check(limiter: RateLimiter | undefined, subject: string, what: string): Promise<AhpError | null> {
    if (limiter === undefined) return null;
    const decision = await limiter.take(subject);
    return decision.allowed ? null : this.limitedError(limiter, decision.retryAfterMs, what);
  }

  private limitedError(limiter: RateLimiter | undefined, retryAfterMs: number, what: string): AhpError {
    const ratePerSecond = limiter?.limit.ratePerSecond ?? 0;
    const burst = limiter?.limit.burst ?? 0;
    return makeError(
      'E_RATE_LIMITED',
      `too many ${what}: at most ${ratePerSecond} per second (bursts of ${burst}); retry after ${retryAfterMs} ms`,
      { limit: { rate_per_second: ratePerSecond, burst }, subject: limiter?.kind ?? AGENT_RATE_KIND },
      { retryAfterMs },
    );
  }
}
