import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { ClaudeCodeHookInput, ClaudeCodePendingAnswer, ConsumptionAction, HookDecision } from '@ahp/protocol';
import type { ClaudeCodeAnswerStore, SignalStore } from '@ahp/store';
import { LOGGER } from '../config/config.tokens.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { SIGNAL_STORE } from '../store/store.tokens.js';

/** Injection token of the `ClaudeCodeAnswerStore`. */
export const CLAUDE_CODE_ANSWER_STORE = Symbol('CLAUDE_CODE_ANSWER_STORE');

/** How long a PreToolUse's signals wait for the session's next hook: as long as signal records live (24 h). */
export const PENDING_ANSWER_TTL_MS = 24 * 3_600_000;

/** SHA-256 of a tool input as Claude Code sent it (key order as sent: the same call serializes the same). */
export function inputDigest(input: unknown): string {
  return createHash('sha256').update(JSON.stringify(input) ?? '', 'utf8').digest('hex');
}

/** The block/control signals of a PreToolUse decision that Claude Code acted on, to be answered from its next hook. */
export function pendingAnswers(input: ClaudeCodeHookInput, decision: HookDecision): ClaudeCodePendingAnswer[] {
  if (input.hook_event_name !== 'PreToolUse') return [];
  const toolUseId = typeof input['tool_use_id'] === 'string' && input['tool_use_id'].length > 0 && input['tool_use_id'].length <= 200 ? input['tool_use_id'] : undefined;
  const digest = inputDigest(input.tool_input);
  const pending: ClaudeCodePendingAnswer[] = [];
  for (const signal of decision.signals) {
    const { intensity, id } = signal.header;
    if (intensity !== 'block' && intensity !== 'control') continue;
    // A deny that waits for an operator's approval is answered by the approval, not by Claude Code.
    if (signal.payload.level === 'blocking' && signal.payload.resolution?.kind === 'await_approval') continue;
    pending.push({ signal_id: id, intensity, tool_name: input.tool_name.slice(0, 200), input_sha256: digest, ...(toolUseId === undefined ? {} : { tool_use_id: toolUseId }) });
    if (pending.length === 20) break;
  }
  return pending;
}

/**
 * What the next hook of the session tells about a pending signal, or undefined when it tells
 * nothing (the signal stays `not_reported`). Only what Claude Code's hooks make certain:
 * - control → the same call's PostToolUse (same `tool_use_id`, or the same tool when Claude Code
 *   sends no id): Claude Code ran the tool with the modified input → `accept_modification`;
 * - block → a PreToolUse of the same tool with a different input: Claude changed the call after
 *   the deny → `retry_after_fix`;
 * - block → Stop: Claude ended its turn without calling the tool again → `abort`.
 */
export function inferredAction(pending: ClaudeCodePendingAnswer, next: ClaudeCodeHookInput): ConsumptionAction | undefined {
  if (pending.intensity === 'control') {
    if (next.hook_event_name !== 'PostToolUse' || next.tool_name !== pending.tool_name) return undefined;
    const nextId = next['tool_use_id'];
    if (pending.tool_use_id !== undefined && typeof nextId === 'string' && nextId !== pending.tool_use_id) return undefined;
    return 'accept_modification';
  }
  if (next.hook_event_name === 'PreToolUse') {
    return next.tool_name === pending.tool_name && inputDigest(next.tool_input) !== pending.input_sha256 ? 'retry_after_fix' : undefined;
  }
  return next.hook_event_name === 'Stop' ? 'abort' : undefined;
}

/**
 * Answers for Claude Code, which cannot send `signal_response`: the signals of a PreToolUse are
 * kept in Redis (ClaudeCodeAnswerStore) and the session's next hook answers those its event makes
 * certain ({@link inferredAction}), recorded as `inferred` in the signal log. The others keep the
 * `not_reported` state their log entries were written with. Best effort: a failure is logged and
 * never changes the hook's answer.
 */
@Injectable()
export class ClaudeCodeAnswers {
  private readonly log: JsonLogger;

  constructor(
    @Inject(CLAUDE_CODE_ANSWER_STORE) private readonly pending: ClaudeCodeAnswerStore,
    @Inject(SIGNAL_STORE) private readonly signals: SignalStore,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'claude-code-answers' });
  }

  /** Answers the session's pending signals from `next`, the hook that followed them. */
  async infer(agentId: string, sessionId: string, next: ClaudeCodeHookInput, now: number = Date.now()): Promise<void> {
    try {
      const pending = await this.pending.take(sessionId);
      for (const entry of pending) {
        const action = inferredAction(entry, next);
        if (action === undefined) continue;
        const response = { signal_id: entry.signal_id, consumed_at: new Date(now).toISOString(), action, details: { inferred_from: next.hook_event_name } };
        const outcome = await this.signals.respond(agentId, response, now, 'inferred');
        this.log.debug({ agentId, sessionId, signalId: entry.signal_id, action, outcome: outcome.outcome }, 'Claude Code answer inferred');
      }
    } catch (error) {
      this.log.warn({ agentId, sessionId, error }, 'inferring Claude Code answers failed');
    }
  }

  /** Keeps the block/control signals of a PreToolUse decision for the session's next hook. */
  async remember(sessionId: string, input: ClaudeCodeHookInput, decision: HookDecision): Promise<void> {
    const pending = pendingAnswers(input, decision);
    if (pending.length === 0) return;
    try {
      await this.pending.put(sessionId, pending, PENDING_ANSWER_TTL_MS);
    } catch (error) {
      this.log.warn({ sessionId, error }, 'keeping Claude Code signals for answer inference failed');
    }
  }
}
