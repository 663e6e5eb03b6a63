/**
 * Answers for coding agents, which cannot send `signal_response` (Claude Code, Codex, Copilot):
 * the block and control signals of a pre-tool hook are kept in Redis, and the session's next hook
 * answers those its event makes certain ({@link inferredActionOf}), recorded as `inferred` in the
 * signal log. The others keep the `not_reported` state their log entries were written with.
 *
 * Each dialect shows its hooks as an {@link AnswerView} — a tool call about to run, a tool call
 * that ran, the end of a turn, or something else — so the rules of inference are written once.
 * Best effort: a failure is logged and never changes the hook's answer.
 */
import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { ClaudeCodePendingAnswer, ConsumptionAction, HookDecision } from '@ahp/protocol';
import type { ClaudeCodeAnswerStore, SignalStore } from '@ahp/store';
import { LOGGER } from '../config/config.tokens.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { SIGNAL_STORE } from '../store/store.tokens.js';

/** Injection token of the store of pending answers (`<prefix>:cc-answers:{<session>}`, for every coding agent's sessions). */
export const HOOK_ANSWER_STORE = Symbol('HOOK_ANSWER_STORE');

/** How long a pre-tool hook's signals wait for the session's next hook: as long as signal records live (24 h). */
export const PENDING_ANSWER_TTL_MS = 24 * 3_600_000;

/** A coding agent's hook as answer inference reads it. */
export interface AnswerView {
  /** `pre-tool`: a tool call about to run (the agent obeys its deny and its changed input); `post-tool`: one that ran; `stop`: the end of a turn. */
  readonly kind: 'pre-tool' | 'post-tool' | 'stop' | 'other';
  /** The agent's event name, recorded as `details.inferred_from`. */
  readonly event: string;
  readonly tool?: string | undefined;
  /** The tool input as the agent sent it. */
  readonly input?: unknown;
  /** The agent's id of the call, when it sends one (Claude Code's and Codex's `tool_use_id`). */
  readonly toolUseId?: string | undefined;
}

/** SHA-256 of a tool input as the agent sent it (key order as sent: the same call serializes the same). */
export function inputDigest(input: unknown): string {
  return createHash('sha256').update(JSON.stringify(input) ?? '', 'utf8').digest('hex');
}

/** The block/control signals of a pre-tool decision the agent acted on, to be answered from its next hook. */
export function pendingAnswersOf(view: AnswerView, decision: HookDecision): ClaudeCodePendingAnswer[] {
  if (view.kind !== 'pre-tool' || view.tool === undefined) return [];
  const toolUseId = view.toolUseId !== undefined && view.toolUseId.length > 0 && view.toolUseId.length <= 200 ? view.toolUseId : undefined;
  const digest = inputDigest(view.input);
  const pending: ClaudeCodePendingAnswer[] = [];
  for (const signal of decision.signals) {
    const { intensity, id } = signal.header;
    if (intensity !== 'block' && intensity !== 'control') continue;
    // A deny that waits for an operator's approval is answered by the approval, not by the agent.
    if (signal.payload.level === 'blocking' && signal.payload.resolution?.kind === 'await_approval') continue;
    pending.push({ signal_id: id, intensity, tool_name: view.tool.slice(0, 200), input_sha256: digest, ...(toolUseId === undefined ? {} : { tool_use_id: toolUseId }) });
    if (pending.length === 20) break;
  }
  return pending;
}

/**
 * What the next hook of the session tells about a pending signal, or undefined when it tells
 * nothing (the signal stays `not_reported`). Only what the agents' hooks make certain:
 * - control → the same call's post-tool hook (same call id, or the same tool when the agent sends
 *   no id): the agent ran the tool with the modified input → `accept_modification`;
 * - block → a pre-tool hook of the same tool with a different input: the model changed the call
 *   after the deny → `retry_after_fix`;
 * - block → the end of the turn: the model stopped without calling the tool again → `abort`.
 */
export function inferredActionOf(pending: ClaudeCodePendingAnswer, next: AnswerView): ConsumptionAction | undefined {
  if (pending.intensity === 'control') {
    if (next.kind !== 'post-tool' || next.tool !== pending.tool_name) return undefined;
    if (pending.tool_use_id !== undefined && next.toolUseId !== undefined && next.toolUseId !== pending.tool_use_id) return undefined;
    return 'accept_modification';
  }
  if (next.kind === 'pre-tool') return next.tool === pending.tool_name && inputDigest(next.input) !== pending.input_sha256 ? 'retry_after_fix' : undefined;
  return next.kind === 'stop' ? 'abort' : undefined;
}

/** See the module comment. */
@Injectable()
export class HookAnswers {
  private readonly log: JsonLogger;

  constructor(
    @Inject(HOOK_ANSWER_STORE) private readonly pending: ClaudeCodeAnswerStore,
    @Inject(SIGNAL_STORE) private readonly signals: SignalStore,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'hook-answers' });
  }

  /** Answers the session's pending signals from `next`, the hook that followed them. */
  async infer(agentId: string, sessionId: string, next: AnswerView, now: number = Date.now()): Promise<void> {
    try {
      const pending = await this.pending.take(sessionId);
      for (const entry of pending) {
        const action = inferredActionOf(entry, next);
        if (action === undefined) continue;
        const response = { signal_id: entry.signal_id, consumed_at: new Date(now).toISOString(), action, details: { inferred_from: next.event.slice(0, 64) } };
        const outcome = await this.signals.respond(agentId, response, now, 'inferred');
        this.log.debug({ agentId, sessionId, signalId: entry.signal_id, action, outcome: outcome.outcome }, 'coding agent answer inferred');
      }
    } catch (error) {
      this.log.warn({ agentId, sessionId, error }, 'inferring coding agent answers failed');
    }
  }

  /** Keeps the block/control signals of a pre-tool decision for the session's next hook. */
  async remember(sessionId: string, view: AnswerView, decision: HookDecision): Promise<void> {
    const pending = pendingAnswersOf(view, decision);
    if (pending.length === 0) return;
    try {
      await this.pending.put(sessionId, pending, PENDING_ANSWER_TTL_MS);
    } catch (error) {
      this.log.warn({ sessionId, error }, 'keeping coding agent signals for answer inference failed');
    }
  }
}
