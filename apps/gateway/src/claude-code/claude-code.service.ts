import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { failurePolicyDecision, inspectJsonValue, makeError, type AgentIdentity, type ClaudeCodeHookInput, type ClaudeCodeHookOutput } from '@ahp/protocol';
import type { SessionStore } from '@ahp/store';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import { failurePolicyFor, type GatewayConfig } from '../config/gateway-config.js';
import { HooksService } from '../hooks/hooks.service.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { OperatorApiError } from '../operators/api-error.js';
import { SESSION_STORE } from '../store/store.tokens.js';
import { ClaudeCodeAnswers } from './claude-code-answers.js';
import { CLAUDE_CODE_TRIGGERS, hookContext, refusedOutput, toClaudeCodeOutput } from './claude-code-mapping.js';
import { ClaudeCodePresence } from './claude-code-presence.js';

/**
 * The gateway session of a Claude Code session: derived from the agent and Claude Code's
 * `session_id`, so every hook of one Claude Code session lands in the same AHP session on any
 * gateway, and two agents reusing a session id never share one.
 */
export function claudeCodeSessionId(agentId: string, claudeSessionId: string): string {
  return `cc-${createHash('sha256').update(`${agentId}\0${claudeSessionId}`, 'utf8').digest('hex').slice(0, 40)}`;
}

/** Runs one Claude Code hook through the gateway's hook machinery and answers in Claude Code's format. */
@Injectable()
export class ClaudeCodeService {
  private readonly log: JsonLogger;

  constructor(
    @Inject(HooksService) private readonly hooks: HooksService,
    @Inject(SESSION_STORE) private readonly sessions: SessionStore,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) logger: JsonLogger,
    @Inject(ClaudeCodePresence) private readonly presence: ClaudeCodePresence,
    @Inject(ClaudeCodeAnswers) private readonly answers: ClaudeCodeAnswers,
  ) {
    this.log = logger.child({ component: 'claude-code' });
  }

  /**
   * The answer to `input` from `agent`. Resolves within AHP_CLAUDE_CODE_DEADLINE_MS (plus the
   * Redis round trips) with the oracles' decision or the failure policy's.
   *
   * When the session cannot be opened (Redis down), the trigger's failure policy answers, as it
   * does when the hook itself cannot be recorded: an HTTP error would let Claude Code run the
   * tool, so a fail-closed PreToolUse must get an explicit deny instead.
   *
   * @throws OperatorApiError E_FORBIDDEN should the derived session belong to another agent.
   */
  async handle(agent: AgentIdentity, input: ClaudeCodeHookInput): Promise<ClaudeCodeHookOutput> {
    const trigger = CLAUDE_CODE_TRIGGERS[input.hook_event_name];
    const context = hookContext(input);
    // Checked here, not left to the queue's schema: the model can make a tool input too large
    // (a Write of a big file), so it is refused closed with its cause, whatever the trigger's
    // failure policy, and before a session or a hook is recorded for it.
    const issue = inspectJsonValue(context, 1)[0];
    if (issue !== undefined) {
      const where = issue.path.length === 0 ? '' : ` at ${issue.path.join('.')}`;
      this.log.info({ agentId: agent.id, trigger, path: issue.path.join('.').slice(0, 200) }, 'Claude Code hook refused: context over the hook context limits');
      return refusedOutput(input.hook_event_name, makeError('E_INVALID_FRAME', `the hook input exceeds the hook context limits${where}: ${issue.message}`));
    }
    const sessionId = claudeCodeSessionId(agent.id, input.session_id);
    let session;
    try {
      session = await this.sessions.open(agent, sessionId, sessionId, Date.now(), this.config.sessionTtlMs);
    } catch (error) {
      this.log.error({ agentId: agent.id, sessionId, error }, 'opening the Claude Code session failed; applying the failure policy');
      const decision = failurePolicyDecision({
        hookId: randomUUID(),
        trigger,
        policy: failurePolicyFor(this.config, trigger),
        code: 'E_UNAVAILABLE',
        message: 'the session could not be opened',
        now: new Date().toISOString(),
      });
      return toClaudeCodeOutput(input, decision);
    }
    if (session.kind === 'foreign') throw new OperatorApiError(makeError('E_FORBIDDEN', 'this session belongs to another agent'));
    // The session is in the fleet before the hook is (the fleet row must exist for its activity),
    // and the signals of its previous PreToolUse are answered from this hook before it is evaluated.
    await Promise.all([this.presence.seen(agent, session.sessionId, input.hook_event_name), this.answers.infer(agent.id, session.sessionId, input)]);
    const decision = await this.hooks.evaluate({
      agent,
      sessionId: session.sessionId,
      trigger,
      context,
      deadlineMs: this.config.claudeCodeDeadlineMs,
    });
    await this.answers.remember(session.sessionId, input, decision);
    return toClaudeCodeOutput(input, decision);
  }
}
