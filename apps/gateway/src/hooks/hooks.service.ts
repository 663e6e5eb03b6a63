import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import {
  failurePolicyDecision,
  hookToolCall,
  makeError,
  type AgentIdentity,
  type AhpError,
  type FailurePolicy,
  type HookDecision,
  type HookFrame,
  type HookTrigger,
  type JsonObject,
} from '@ahp/protocol';
import { StoreInputError, type HookQueue, type HookStore } from '@ahp/store';
import type { AgentConnection } from '../connections/agent-connection.js';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import { failurePolicyFor, hookDeadlineFor, type GatewayConfig } from '../config/gateway-config.js';
import { GatewayEvents } from '../events/gateway-events.js';
import { DrainState } from '../lifecycle/drain-state.js';
import { RateLimitsService } from '../rate-limit/rate-limits.service.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { planRequiredError, unansweredError } from './hook-admission.js';
import { PlanGateService } from './plan-gate.js';
import { SessionOpener, type SessionOpening } from '../sessions/session-opener.js';
import { HOOK_QUEUE, HOOK_STORE } from '../store/store.tokens.js';
import { checkHookContext } from './hook-context-validation.js';
import { hookQueuePriority } from './queue-priority.js';
import { HookTracing } from './hook-tracing.js';
import { HookWaiters, MAX_WAITERS_PER_HOOK, type HookWaiter } from './hook-waiters.js';

/** A socket waiting for a hook's decision: the decision goes out as a frame. */
interface SocketWaiter extends HookWaiter {
  readonly via: 'ws';
  readonly connection: AgentConnection;
}

/** A caller of plain HTTP (no socket) waiting for a hook's decision: it waits on a promise. */
interface HttpWaiter extends HookWaiter {
  readonly via: 'http';
  readonly resolve: (decision: HookDecision) => void;
}

type Waiter = SocketWaiter | HttpWaiter;

/** A hook asked without a connection (the Claude Code endpoint): who asks, about what, and how long it may take. */
export interface DirectHookInput {
  readonly agent: AgentIdentity;
  /** A session of `agent` (see `SessionStore.open`). */
  readonly sessionId: string;
  readonly trigger: HookTrigger;
  readonly context: JsonObject;
  /** Upper bound of the wait; the trigger's configured deadline still applies when it is shorter. */
  readonly deadlineMs: number;
}

/** Extra session ids cached per connection; beyond this each one is checked in Redis again. */
const MAX_CACHED_SESSIONS = 256;

/**
 * The hook round trip on the gateway's side.
 *
 * A hook frame opens (or joins) the hook's correlation in Redis with this gateway as its owner,
 * enqueues the evaluation job, and waits — in memory, only as a pointer to the socket and a
 * deadline timer — for the decision. The decision reaches us through this gateway's feed (the
 * store routes every decision to the owner's stream; `GatewayFeedService` hands it to
 * {@link deliver}), whichever worker made it. At the deadline the trigger's failure policy is offered to the store as a decision;
 * the store keeps the first decision ever made for the hook, so a worker that won the race is
 * what the agent gets, and every later re-send of the hook gets that same decision.
 *
 * Callers without a socket (the Claude Code endpoint) use {@link evaluate}: the same correlation,
 * queue and deadline, with a promise in place of the socket.
 *
 * Nothing here must survive a crash: the correlation, the job and the decision live in Redis,
 * and the SDK re-sends pending hooks (same id) after it reconnects, to any gateway.
 */
@Injectable()
export class HooksService implements OnModuleDestroy {
  /** Per hook id, who waits for its decision: up to MAX_WAITERS_PER_HOOK sockets, or one HTTP caller. */
  private readonly waiters = new HookWaiters<Waiter>(
    (hookId) => void this.onDeadline(hookId),
    (waiter) => {
      if (waiter.via === 'ws') waiter.connection.pendingHooks.delete(waiter.hookId);
    },
  );
  private readonly log: JsonLogger;

  constructor(
    @Inject(HOOK_STORE) private readonly hooks: HookStore,
    @Inject(HOOK_QUEUE) private readonly queue: HookQueue,
    @Inject(SessionOpener) private readonly sessions: SessionOpener,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) logger: JsonLogger,
    @Inject(DrainState) private readonly drain: DrainState,
    @Inject(GatewayEvents) private readonly events: GatewayEvents,
    @Inject(RateLimitsService) private readonly rateLimits: RateLimitsService,
    @Inject(PlanGateService) private readonly planGate: PlanGateService,
    @Inject(HookTracing) private readonly tracing: HookTracing,
  ) {
    this.log = logger.child({ component: 'hooks' });
  }

  onModuleDestroy(): void {
    this.stop();
  }

  /** Hooks waiting for a decision on this gateway. */
  get pendingCount(): number {
    return this.waiters.size;
  }

  /** Serves one hook frame; every path ends in exactly one reply (decision or error) or a wait for one. */
  async handleHook(connection: AgentConnection, frame: HookFrame, now: number = Date.now()): Promise<void> {
    const hookId = frame.id;
    if (this.drain.draining) {
      connection.sendError(hookId, makeError('E_SHUTTING_DOWN', 'this gateway is shutting down; reconnect and re-send the hook', undefined, { retryAfterMs: 1000 }));
      return;
    }
    // Before anything is recorded: a context the rules would misread is never evaluated.
    const checked = checkHookContext(frame.trigger, frame.context);
    if (!checked.ok) {
      this.log.info({ agentId: connection.agentId, correlationId: hookId, trigger: frame.trigger, code: checked.error.code }, 'hook refused: invalid context');
      connection.sendError(hookId, checked.error);
      return;
    }
    let session: string | SessionOpening;
    try {
      session = await this.resolveSession(connection, frame.session_id, now);
    } catch (error) {
      this.log.error({ agentId: connection.agentId, correlationId: hookId, error }, 'checking the hook session failed');
      connection.sendError(hookId, makeError('E_UNAVAILABLE', 'the hook session could not be checked; retry shortly', undefined, { retryAfterMs: 1000 }));
      return;
    }
    if (typeof session !== 'string') {
      if (session.kind === 'limited') {
        // Answered like a hook over the agent's frame limit: the SDK waits retry_after_ms and re-sends.
        this.log.info({ agentId: connection.agentId, correlationId: hookId, retryAfterMs: session.error.retry_after_ms }, 'hook refused: its new session is over the new-session limit');
        connection.sendError(hookId, session.error);
      } else {
        connection.fail(hookId, 'E_FORBIDDEN', `session ${frame.session_id ?? ''} belongs to another agent`);
      }
      return;
    }
    const sessionId = session;

    // The client may shorten the deadline, never extend it past what the operator configured.
    const configured = hookDeadlineFor(this.config, frame.trigger);
    const deadlineAt = now + Math.min(frame.deadline_ms ?? configured, configured);
    const fields = { agentId: connection.agentId, sessionId, correlationId: hookId, trigger: frame.trigger };

    let outcome: Awaited<ReturnType<HookStore['open']>>;
    try {
      outcome = await this.hooks.open({
        hookId,
        agentId: connection.agentId,
        sessionId,
        gatewayId: this.config.gatewayId,
        trigger: frame.trigger,
        now,
        deadlineAt,
        ...this.rateLimits.hookCounting(connection.agentId),
        planGate: this.planGate.gateFor(connection.agent.identity, frame.trigger, frame.context),
      });
    } catch (error) {
      this.log.error({ ...fields, error }, 'opening the hook failed');
      connection.sendError(hookId, makeError('E_UNAVAILABLE', 'the hook could not be recorded; retry shortly', undefined, { retryAfterMs: 1000 }));
      return;
    }

    switch (outcome.kind) {
      case 'limited': {
        const limited = this.rateLimits.agentLimited(outcome.retryAfterMs);
        this.log.debug({ ...fields, retryAfterMs: limited.retry_after_ms }, 'hook rate limited');
        connection.sendError(hookId, limited);
        return;
      }
      case 'gated':
        // docs/spec/teams.md#plan-gate: no tool use before the plan is approved. Enforced here, not only in the SDK,
        // so an old or modified client cannot run tools around a pending plan.
        this.log.info({ ...fields, requestId: outcome.requestId }, 'tool call gated: plan approval pending');
        this.refuse(
          connection,
          sessionId,
          hookId,
          frame.trigger,
          makeError('E_PLAN_PENDING', `tool calls wait until plan approval ${outcome.requestId} is decided`, { request_id: outcome.requestId }),
          now,
        );
        return;
      case 'plan_required':
        this.log.info({ ...fields, requestId: outcome.requestId, planStatus: outcome.status }, 'tool call gated: no approved plan');
        this.refuse(connection, sessionId, hookId, frame.trigger, planRequiredError(outcome, this.planGate.planningTools(connection.agent.identity)), now);
        return;
      case 'unanswered':
        this.log.info({ ...fields, signalIds: outcome.signalIds }, 'hook refused: block/control signals left unanswered');
        this.refuse(connection, sessionId, hookId, frame.trigger, unansweredError(outcome), now);
        return;
      case 'foreign':
        this.log.warn(fields, 'hook id belongs to another agent');
        connection.fail(hookId, 'E_CONFLICT', 'this hook id is already used by another agent; mint a new UUID');
        return;
      case 'decided':
        this.log.debug(fields, 'hook already decided; answering with the stored decision');
        this.sendDecision(connection, outcome.decision);
        this.events.emit('decisionDelivered', { agentId: connection.agentId, decision: outcome.decision, latencyMs: Date.now() - now, via: 'ws', at: Date.now() });
        return;
      case 'created':
      case 'joined': {
        if (outcome.kind === 'created' && outcome.leased > 0) this.rateLimits.creditAgentLease(connection.agentId, outcome.leased);
        // The stored deadline wins: a re-sent hook keeps the deadline of its first open. A socket
        // that closed while Redis answered is not waited for; the job is still enqueued so the
        // decision is ready when the SDK re-sends the hook.
        if (connection.isOpen && !this.track(connection, hookId, frame.trigger, outcome.correlation.deadline_at, now)) {
          this.log.info(fields, 'hook refused: too many connections wait for this hook id');
          connection.sendError(
            hookId,
            makeError('E_RATE_LIMITED', `${MAX_WAITERS_PER_HOOK} connections already wait for this hook id; re-send it once one of them has its decision`, undefined, { retryAfterMs: 1000 }),
          );
          return;
        }
        this.events.emit('hookReceived', { agentId: connection.agentId, sessionId, hookId, trigger: frame.trigger, tool: toolName(frame.context), via: 'ws', at: now });
        try {
          // A joined hook is enqueued again on purpose: the job may have been lost with the
          // gateway that first opened it; the queue ignores a job id it still holds.
          const priority = hookQueuePriority(connection.backlogPlaceOf(hookId), this.config.fairInFlight);
          await this.enqueue(hookId, frame.trigger, connection.agent.identity, sessionId, frame.context, now, outcome.correlation.deadline_at, priority);
          this.log.debug({ ...fields, jobId: hookId, outcome: outcome.kind }, 'hook enqueued');
        } catch (error) {
          await this.enqueueFailed(hookId, fields, error);
        }
        return;
      }
    }
  }

  /**
   * Runs one hook for a caller without a socket (the Claude Code HTTP endpoint) through the same
   * correlation, queue and failure policy as {@link handleHook}, and resolves with the decision —
   * always a decision, never an error: when the hook cannot be evaluated (draining, Redis down, a
   * plan awaiting approval) the answer is the failure policy's, so a caller that must answer in
   * time (Claude Code lets a tool run when its hook fails) still gets an explicit deny for a
   * fail-closed trigger. Each call is a new hook id: such callers never re-send.
   */
  async evaluate(input: DirectHookInput, now: number = Date.now()): Promise<HookDecision> {
    const hookId = randomUUID();
    const { agent, sessionId, trigger } = input;
    const fields = { agentId: agent.id, sessionId, correlationId: hookId, trigger, via: 'http' };
    if (this.drain.draining) return this.policyDecision(hookId, trigger, 'E_SHUTTING_DOWN', 'the gateway is shutting down');
    const checked = checkHookContext(trigger, input.context);
    if (!checked.ok) {
      this.log.warn({ ...fields, code: checked.error.code }, 'hook refused: invalid context');
      return this.policyDecision(hookId, trigger, checked.error.code, checked.error.message, 'fail_closed');
    }
    const deadlineAt = now + Math.min(input.deadlineMs, hookDeadlineFor(this.config, trigger));
    let outcome: Awaited<ReturnType<HookStore['open']>>;
    try {
      // Claude Code has no way to answer a signal: it applies the decision itself (a deny stops the
      // tool, updatedInput replaces its input), so its hooks are exempt (docs/claude-code.md).
      outcome = await this.hooks.open({
        hookId,
        agentId: agent.id,
        sessionId,
        gatewayId: this.config.gatewayId,
        trigger,
        now,
        deadlineAt,
        planGate: this.planGate.gateFor(agent, trigger, input.context),
        answersRequired: false,
      });
    } catch (error) {
      this.log.error({ ...fields, error }, 'opening the hook failed; applying the failure policy');
      return this.policyDecision(hookId, trigger, 'E_UNAVAILABLE', 'the hook could not be recorded');
    }
    switch (outcome.kind) {
      case 'gated':
        this.log.info({ ...fields, requestId: outcome.requestId }, 'tool call gated: plan approval pending');
        return this.policyDecision(hookId, trigger, 'E_PLAN_PENDING', `tool calls wait until plan approval ${outcome.requestId} is decided`, 'fail_closed');
      case 'plan_required': {
        const error = planRequiredError(outcome, this.planGate.planningTools(agent));
        this.log.info({ ...fields, requestId: outcome.requestId, planStatus: outcome.status }, 'tool call gated: no approved plan');
        this.events.emit('hookRefused', { agentId: agent.id, sessionId, hookId, trigger, error, via: 'http', at: now });
        return this.policyDecision(hookId, trigger, error.code, error.message, 'fail_closed');
      }
      case 'unanswered':
        // Not asked for (answersRequired is false on this path); refused like any other, closed.
        return this.policyDecision(hookId, trigger, 'E_SIGNAL_UNANSWERED', unansweredError(outcome).message, 'fail_closed');
      case 'foreign':
        // A fresh UUID cannot belong to anyone; if it does, refuse rather than guess.
        return this.policyDecision(hookId, trigger, 'E_CONFLICT', 'hook id collision', 'fail_closed');
      case 'limited':
        // Not asked for (this path passes no limit); answered like any refusal, closed.
        return this.policyDecision(hookId, trigger, 'E_RATE_LIMITED', 'rate limited', 'fail_closed');
      case 'decided':
        return outcome.decision;
      case 'created':
      case 'joined':
        break;
    }
    const decided = new Promise<HookDecision>((resolve) => {
      // A fresh hook id: no one else waits for it, so the waiter is always taken.
      this.waiters.add({ via: 'http', hookId, trigger, agentId: agent.id, owner: undefined, receivedAt: now, resolve }, outcome.correlation.deadline_at, now);
    });
    this.events.emit('hookReceived', { agentId: agent.id, sessionId, hookId, trigger, tool: toolName(input.context), via: 'http', at: now });
    try {
      await this.enqueue(hookId, trigger, agent, sessionId, input.context, now, outcome.correlation.deadline_at);
      this.log.debug({ ...fields, jobId: hookId }, 'hook enqueued');
    } catch (error) {
      await this.enqueueFailed(hookId, fields, error);
    }
    return decided;
  }

  /**
   * Hands a decision to everyone waiting for it, once each: the waiters are removed before they
   * are answered, so a decision arriving twice (the feed is at-least-once; the deadline path also
   * delivers) produces one answer per waiter. Returns whether anyone here waited for it.
   */
  deliver(decision: HookDecision, via: 'feed' | 'deadline', traceparent?: string, decidedAt?: number): boolean {
    const waiting = this.waiters.take(decision.hook_id);
    // The first answer's time is the one the drill-down records as delivered_at; the span ends there too.
    let deliveredAt: number | undefined;
    for (const waiter of waiting) {
      const at = this.answer(waiter, decision, via);
      deliveredAt ??= at;
    }
    this.tracing.delivered(decision.hook_id, via, traceparent, decidedAt, deliveredAt);
    return waiting.length > 0;
  }

  /** Whether `connection` waits here for the decision of `hookId` (the frame router frees its in-flight place otherwise). */
  isWaiting(connection: AgentConnection, hookId: string): boolean {
    return this.waiters.find(hookId, connection) !== undefined;
  }

  /** Forgets the hooks a closed connection waited for; their decisions stay in Redis for the re-send. */
  connectionClosed(connection: AgentConnection): void {
    for (const hookId of [...connection.pendingHooks.keys()]) {
      const waiter = this.waiters.find(hookId, connection);
      if (waiter !== undefined) this.waiters.remove(waiter);
    }
    connection.pendingHooks.clear();
  }

  /** Resolves true once no hook waits on this gateway, false after `timeoutMs`. */
  waitForIdle(timeoutMs: number): Promise<boolean> {
    return this.waiters.whenIdle(timeoutMs);
  }

  /** Clears every deadline timer (shutdown); the hooks stay pending in Redis. */
  stop(): void {
    for (const waiter of this.waiters.takeAll()) {
      // A socket's SDK re-sends the hook to another gateway; an HTTP caller has no re-send to fall
      // back on: it gets the failure policy now.
      if (waiter.via === 'http') this.answer(waiter, this.policyDecision(waiter.hookId, waiter.trigger, 'E_SHUTTING_DOWN', 'the gateway is shutting down'), 'shutdown');
    }
  }

  /** Sends an admission refusal and tells the fleet view, so operators see why an agent stalls. */
  private refuse(connection: AgentConnection, sessionId: string, hookId: string, trigger: HookTrigger, error: AhpError, now: number): void {
    connection.sendError(hookId, error);
    this.events.emit('hookRefused', { agentId: connection.agentId, sessionId, hookId, trigger, error, via: 'ws', at: now });
  }

  /**
   * Adds `connection` to the waiters of `hookId` (a re-send on the same connection replaces its
   * own entry and keeps its first arrival). False when MAX_WAITERS_PER_HOOK other connections
   * already wait for it.
   */
  private track(connection: AgentConnection, hookId: string, trigger: HookTrigger, deadlineAt: number, now: number): boolean {
    const previous = this.waiters.find(hookId, connection);
    const waiter: SocketWaiter = { via: 'ws', hookId, trigger, agentId: connection.agentId, owner: connection, connection, receivedAt: previous?.receivedAt ?? now };
    if (!this.waiters.add(waiter, deadlineAt, now)) return false;
    if (!connection.pendingHooks.has(hookId)) connection.pendingHooks.set(hookId, connection.pendingHooks.size + 1);
    return true;
  }

  /** Gives one waiter its decision: a frame on its socket or its promise resolved; the fleet view learns the latency. Returns when (epoch ms). */
  private answer(waiter: Waiter, decision: HookDecision, via: 'feed' | 'deadline' | 'shutdown'): number {
    if (waiter.via === 'ws') {
      this.sendDecision(waiter.connection, decision);
      waiter.connection.log.debug({ sessionId: waiter.connection.sessionId, correlationId: decision.hook_id, via }, 'decision delivered');
    } else {
      waiter.resolve(decision);
      this.log.debug({ agentId: waiter.agentId, correlationId: decision.hook_id, via }, 'decision delivered over http');
    }
    const at = Date.now();
    this.events.emit('decisionDelivered', { agentId: waiter.agentId, decision, latencyMs: at - waiter.receivedAt, via: waiter.via, at });
    return at;
  }

  private async onDeadline(hookId: string): Promise<void> {
    const waiter = this.waiters.first(hookId);
    if (waiter === undefined) return;
    this.log.info({ agentId: waiter.agentId, correlationId: hookId, trigger: waiter.trigger, via: waiter.via }, 'hook deadline reached; applying the failure policy');
    await this.decideByPolicy(hookId, 'E_TIMEOUT', 'no decision arrived before the hook deadline');
  }

  /**
   * A hook whose job could not be queued: the trigger's failure policy when the queue was the
   * trouble (Redis), but closed when the job itself was refused (StoreInputError: a context the
   * job schema does not carry). The context was checked against the same limits at the door, so
   * that is a bug; letting it pass by a fail-open policy would let the largest inputs past every
   * rule unseen.
   */
  private async enqueueFailed(hookId: string, fields: Record<string, unknown>, error: unknown): Promise<void> {
    if (error instanceof StoreInputError) {
      this.log.error({ ...fields, jobId: hookId, error: error.message }, 'the hook job was refused by the queue; deciding it closed');
      await this.decideByPolicy(hookId, 'E_INVALID_CONTEXT', `the hook could not be queued for evaluation (${error.message.slice(0, 512)})`, 'fail_closed');
      return;
    }
    this.log.error({ ...fields, jobId: hookId, error }, 'enqueuing the hook failed; applying the failure policy now');
    await this.decideByPolicy(hookId, 'E_UNAVAILABLE', 'the hook could not be queued for evaluation');
  }

  /**
   * Offers the trigger's failure-policy decision to the store and delivers whatever decision the
   * store holds afterwards (the worker's, if it was first). If the store cannot be reached, a
   * socket gets `E_UNAVAILABLE` for the hook: it may retry, and the retry finds whatever decision
   * was stored by then; an HTTP caller, which cannot retry the same hook, gets the policy decision.
   */
  private async decideByPolicy(hookId: string, code: 'E_TIMEOUT' | 'E_UNAVAILABLE' | 'E_INVALID_CONTEXT', message: string, policy?: FailurePolicy): Promise<void> {
    const first = this.waiters.first(hookId);
    if (first === undefined) return;
    const now = Date.now();
    const decision = this.policyDecision(hookId, first.trigger, code, message, policy, now);
    try {
      const stored = await this.hooks.decide(hookId, decision, now);
      this.deliver(stored.decision, 'deadline');
    } catch (error) {
      this.log.error({ agentId: first.agentId, correlationId: hookId, error }, 'storing the failure-policy decision failed');
      for (const waiter of this.waiters.take(hookId)) {
        if (waiter.via === 'http') this.answer(waiter, decision, 'deadline');
        else waiter.connection.sendError(hookId, makeError('E_UNAVAILABLE', 'the hook could not be decided; re-send it', undefined, { retryAfterMs: 1000 }));
      }
    }
  }

  /** The failure policy's decision for `trigger` (the configured policy unless `policy` overrides it). */
  private policyDecision(hookId: string, trigger: HookTrigger, code: string, message: string, policy?: FailurePolicy, now: number = Date.now()): HookDecision {
    return failurePolicyDecision({
      hookId,
      trigger,
      policy: policy ?? failurePolicyFor(this.config, trigger),
      code,
      message,
      now: new Date(now).toISOString(),
    });
  }

  private enqueue(
    hookId: string,
    trigger: HookTrigger,
    agent: AgentIdentity,
    sessionId: string,
    context: JsonObject,
    now: number,
    deadlineAt: number,
    priority?: number,
  ): Promise<void> {
    const job = { hook_id: hookId, trigger, agent, session_id: sessionId, context, enqueued_at: now, deadline_at: deadlineAt };
    // The job's queue timestamp (the drill-down's enqueued_at) is also where the receive span ends.
    const enqueuedAt = Date.now();
    const options = { enqueuedAt, ...(priority === undefined ? {} : { priority }) };
    return this.tracing.enqueue({ hookId, trigger, agentId: agent.id, sessionId, receivedAt: now }, enqueuedAt, () => this.queue.enqueue(job, options));
  }

  private sendDecision(connection: AgentConnection, decision: HookDecision): void {
    connection.send({ type: 'decision', id: decision.hook_id, decision });
  }

  /**
   * The session a hook belongs to: the connection's own, or — for a bridge that multiplexes
   * several runs over one connection — another session of the same agent, opened (and, when new,
   * counted against the new-session limit) by SessionOpener. Anything but a session id is the
   * refusal: `foreign` when the named session belongs to someone else, so an agent cannot file
   * hooks under another's run, or `limited`.
   */
  private async resolveSession(connection: AgentConnection, requested: string | undefined, now: number): Promise<string | SessionOpening> {
    const own = connection.sessionId;
    if (own === undefined) throw new Error('hook on a connection without a session');
    if (requested === undefined || requested === own || connection.extraSessions.has(requested)) return requested ?? own;
    const outcome = await this.sessions.open(connection.agent.identity, requested, requested, now);
    if (outcome.kind !== 'created' && outcome.kind !== 'resumed') return outcome;
    if (connection.extraSessions.size < MAX_CACHED_SESSIONS) connection.extraSessions.add(outcome.sessionId);
    return outcome.sessionId;
  }
}

/** The tool a hook names, for the fleet view and metrics (a checked context has it at the tool triggers). */
function toolName(context: JsonObject): string | undefined {
  return hookToolCall(context)?.name;
}
