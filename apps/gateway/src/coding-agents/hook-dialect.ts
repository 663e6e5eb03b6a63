/**
 * A coding agent's hook format — its "dialect" — as the gateway needs it: how its input is
 * parsed, which AHP trigger and hook context an input is, which session it belongs to, and how a
 * {@link HookDecision} (or a refusal before evaluation) reads as the answer the agent obeys.
 * Claude Code, Codex and Copilot are dialects; everything else (token, rate limit, size and shape
 * checks, the session, the fleet, the hook itself) is the same for all of them
 * (CodingAgentHooks, HookIntake, HookPresence).
 */
import { createHash } from 'node:crypto';
import type { AhpError, FleetClient, HookDecision, HookTrigger, JsonObject, PromptFallback } from '@ahp/protocol';
import type { AnswerView } from './hook-answers.js';
import type { SessionPhase } from './hook-presence.js';

export interface HookDialect<Input> {
  /** The agent's kind in the fleet (`client` of its row). */
  readonly client: FleetClient;
  /** The agent's name in messages (`Codex`). */
  readonly label: string;
  /** Prefix of the AHP session ids derived from the agent's sessions ({@link agentSessionId}). */
  readonly sessionPrefix: string;
  /** The parsed input, or a typed error (400 `E_INVALID_FRAME`) naming the field. */
  parse(body: unknown): Input;
  /** The event name, as the agent wrote it (for logs). */
  event(input: Input): string;
  trigger(input: Input): HookTrigger;
  /** Where the hook stands in the session's life, for the fleet. */
  phase(input: Input): SessionPhase;
  /** The agent's own session id. */
  sessionKey(input: Input): string;
  /** The hook context the oracles evaluate (must fit the trigger's typed context). */
  context(input: Input): JsonObject;
  /** The agent's answer for `decision`. */
  answer(input: Input, decision: HookDecision): unknown;
  /**
   * The agent's fail-closed answer to a hook refused before it was evaluated (rate limit, size,
   * shape); `event` is the body's event name as written, undefined when none was found.
   */
  refused(event: string | undefined, error: Pick<AhpError, 'code' | 'message'>): unknown;
  /** `input` as answer inference reads it (HookAnswers): a call about to run, one that ran, the end of a turn. */
  answerView(input: Input): AnswerView;
  /**
   * Whether `input` is the agent's permission prompt (it is about to ask its user to approve a
   * call): such a hook may be held open while an operator decides (PermissionHold).
   */
  permissionPrompt(input: Input): boolean;
  /**
   * The answer of a permission prompt held for an operator who did not decide in time: `dialog`
   * answers with no decision (the agent asks its user), `deny` refuses the call; `reason` says
   * why, where the agent shows text.
   */
  promptFallback(input: Input, fallback: PromptFallback, reason: string): unknown;
}

/**
 * The AHP session of an agent's session: derived from the agent and the agent's session id, so
 * every hook of one session lands in the same AHP session on any gateway, and two agents reusing
 * a session id never share one.
 */
export function agentSessionId(prefix: string, agentId: string, sessionKey: string): string {
  return `${prefix}-${createHash('sha256').update(`${agentId}\0${sessionKey}`, 'utf8').digest('hex').slice(0, 40)}`;
}

/** The object without its undefined fields: hook context must be plain JSON. */
export function definedFields(fields: Record<string, unknown>): JsonObject {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as JsonObject;
}
