import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { failurePolicyDecision, makeError, type AgentIdentity, type HookDecision } from '@ahp/protocol';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import { failurePolicyFor, type GatewayConfig } from '../config/gateway-config.js';
import { HooksService } from '../hooks/hooks.service.js';
import { DrainState } from '../lifecycle/drain-state.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { OperatorApiError } from '../operator-api/api-error.js';
import { SessionOpener, type SessionOpening } from '../sessions/session-opener.js';
import { agentSessionId, type HookDialect } from './hook-dialect.js';
import { HookAnswers } from './hook-answers.js';
import { HookPresence } from './hook-presence.js';
import { PermissionHold } from './permission-hold.js';
import { inspectableContext, partlyInspected } from './tool-text.js';

/** What a dialect may add around the evaluation (Claude Code records its team events). */
export interface HookRunExtras {
  /** Runs once the decision is known, before it is answered. Must not throw. */
  after?(sessionId: string, decision: HookDecision): Promise<void>;
}

/** How long a permission prompt may be held for an operator's decision (PermissionHold). */
export interface HookHoldOptions {
  /** The hook's `X-AHP-Wait-Ms` header: it asks to be held for less than AHP_PERMISSION_WAIT_MS. */
  readonly waitHeader?: string | string[] | undefined;
  /** Aborted when the agent stopped waiting (its connection closed). */
  readonly signal?: AbortSignal | undefined;
  /** The hook sends a permission prompt again when this gateway goes away (`X-AHP-Resend: 1`, `ahp hook`). */
  readonly resends?: boolean | undefined;
}

/** A gateway shutting down hands a permission prompt back to a hook that sends it again elsewhere. */
function handBack(): OperatorApiError {
  return new OperatorApiError(makeError('E_SHUTTING_DOWN', 'this gateway is shutting down; send the permission prompt again', undefined, { retryAfterMs: 1000 }));
}

/**
 * Runs one coding agent hook through the gateway's hook machinery and answers in the agent's
 * format ({@link HookDialect}). Resolves within AHP_CLAUDE_CODE_DEADLINE_MS (the deadline of every
 * coding agent's hooks) plus the Redis round trips, with the oracles' decision or the failure
 * policy's — except an agent's permission prompt waiting for an operator, which is held up to
 * AHP_PERMISSION_WAIT_MS from its arrival (PermissionHold). Answers are inferred for every agent
 * (HookAnswers).
 */
@Injectable()
export class CodingAgentHooks {
  private readonly log: JsonLogger;

  constructor(
    @Inject(HooksService) private readonly hooks: HooksService,
    @Inject(SessionOpener) private readonly sessions: SessionOpener,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) logger: JsonLogger,
    @Inject(HookPresence) private readonly presence: HookPresence,
    @Inject(PermissionHold) private readonly hold: PermissionHold,
    @Inject(HookAnswers) private readonly answers: HookAnswers,
    @Inject(DrainState) private readonly drain: DrainState,
  ) {
    this.log = logger.child({ component: 'coding-agent-hooks' });
  }

  /**
   * The answer to `input` from `agent`.
   *
   * A hook context over the hook context limits (the model can make a tool input too large: a
   * Write of a big file) is refused closed with its cause, whatever the trigger's failure policy,
   * before a session or a hook is recorded for it — except a tool result (`post-tool-use`, the
   * tool already ran) whose text alone is too long: the trigger's failure policy decides, as on
   * the MCP route (tool-text.ts): closed refuses it, open evaluates what fits and says so in the
   * answer. A new session over the agent's new-session limit is refused closed too, before
   * anything is recorded for it (see below). When the session cannot be opened (Redis down),
   * the trigger's failure policy answers, as it does when the hook itself cannot be recorded: an
   * HTTP error would let the agent run the tool, so a fail-closed pre-tool hook gets an explicit deny.
   *
   * @throws OperatorApiError E_FORBIDDEN should the derived session belong to another agent.
   */
  async run<Input>(dialect: HookDialect<Input>, agent: AgentIdentity, input: Input, extras: HookRunExtras = {}, holdOptions: HookHoldOptions = {}): Promise<unknown> {
    const arrivedAt = Date.now();
    // A shutting-down gateway (its store may be closed already) hands a prompt back to a hook that sends it elsewhere.
    if (holdOptions.resends === true && this.drain.draining && dialect.permissionPrompt(input)) throw handBack();
    const trigger = dialect.trigger(input);
    const inspectable = inspectableContext(dialect.context(input), trigger, failurePolicyFor(this.config, trigger));
    const fields = { agentId: agent.id, client: dialect.client, trigger };
    if (inspectable.kind === 'refused') {
      this.log.info({ ...fields, path: inspectable.path.slice(0, 200), partial: inspectable.partial }, 'coding agent hook refused: context over the hook context limits');
      return dialect.refused(dialect.event(input), inspectable.error);
    }
    const { context, cut } = inspectable;
    if (cut.length > 0) this.log.warn({ ...fields, cut: cut.slice(0, 10) }, 'coding agent tool result evaluated partly (fail_open): too large to inspect in full');
    const sessionId = agentSessionId(dialect.sessionPrefix, agent.id, dialect.sessionKey(input));
    let session: SessionOpening;
    try {
      session = await this.sessions.open(agent, sessionId, sessionId);
    } catch (error) {
      this.log.error({ agentId: agent.id, client: dialect.client, sessionId, error }, 'opening the coding agent session failed; applying the failure policy');
      const decision = failurePolicyDecision({
        hookId: randomUUID(),
        trigger,
        policy: failurePolicyFor(this.config, trigger),
        code: 'E_UNAVAILABLE',
        message: 'the session could not be opened',
        now: new Date().toISOString(),
      });
      return dialect.answer(input, decision);
    }
    if (session.kind === 'foreign') throw new OperatorApiError(makeError('E_FORBIDDEN', 'this session belongs to another agent'));
    if (session.kind === 'limited') {
      // An agent's new session over its new-session limit: nothing is recorded for it (no session,
      // fleet row, pending answers, hook), and it is answered as the route answers a hook over the
      // agent's frame limit — the dialect's fail-closed refusal, whatever the trigger's failure
      // policy. A fail-open policy would let the tool calls of an agent that floods sessions
      // (each one new Redis state an operator's approval can bind to) run unevaluated; an HTTP
      // error would let the agent run them too. It resumes once the bucket refills.
      this.log.info({ ...fields, retryAfterMs: session.error.retry_after_ms }, 'coding agent hook refused: its new session is over the new-session limit');
      return dialect.refused(dialect.event(input), session.error);
    }
    // The session is in the fleet before the hook is (the fleet row must exist for its activity).
    // The signals of the session's previous pre-tool hook are answered from this one (agents cannot answer them).
    const view = dialect.answerView(input);
    await Promise.all([
      this.presence.seen(agent, session.sessionId, dialect.phase(input), dialect.client),
      this.answers.infer(agent.id, session.sessionId, view),
    ]);
    const sessionOf = session.sessionId;
    let decision = await this.hooks.evaluate({ agent, sessionId: sessionOf, trigger, context, deadlineMs: this.config.claudeCodeDeadlineMs });
    if (dialect.permissionPrompt(input)) {
      if (holdOptions.resends === true && this.drain.draining) throw handBack();
      // The agent is about to ask its user: a call waiting for an operator is held for the decision.
      const held = await this.hold.hold(
        {
          label: dialect.label,
          agentId: agent.id,
          until: this.hold.deadlineOf(arrivedAt, holdOptions.waitHeader),
          signal: holdOptions.signal,
          resends: holdOptions.resends,
          evaluateWith: (requestId, deadlineMs) => this.hooks.evaluate({ agent, sessionId: sessionOf, trigger, context: { ...context, approval: { request_id: requestId } }, deadlineMs }),
        },
        decision,
      );
      if (held.kind === 'resend') throw handBack();
      decision = held.decision;
      if (held.kind === 'fallback') {
        await extras.after?.(sessionOf, decision);
        return dialect.promptFallback(input, held.fallback, held.reason);
      }
    }
    await Promise.all([this.answers.remember(sessionOf, view, decision), extras.after?.(sessionOf, decision)]);
    return dialect.answer(input, cut.length === 0 ? decision : partlyInspected(decision, cut));
  }
}
