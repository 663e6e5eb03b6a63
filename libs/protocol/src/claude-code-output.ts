/**
 * The answer to a Claude Code hook, as Claude Code reads it (stdout of a `command` hook, the body
 * of an `http` hook's response).
 *
 * Written with `zod/mini` rather than the full zod the rest of the protocol uses: the command
 * hook (`ahp hook claude-code`, tools/cli/src/hook-main.ts) checks the gateway's answer with this
 * schema and is started by Claude Code once per tool call, so its start-up pays for what it
 * loads. Bundled, zod/mini keeps only the checks used here; full zod is ~450 KB of code to
 * compile on every call. The schemas behave as full zod's do (`parse`, `safeParse`, `z.infer`).
 */
import * as z from 'zod/mini';

/** The Claude Code hook events AHP maps to one of its triggers. */
export const CLAUDE_CODE_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'UserPromptSubmit',
  'Stop',
  'SubagentStop',
  'SessionStart',
  'SessionEnd',
  'PreCompact',
  'PermissionRequest',
  // Agent teams (docs/claude-code.md, "Agent teams"): a teammate about to go idle, a task being
  // created or marked completed in the team's shared task list.
  'TeammateIdle',
  'TaskCreated',
  'TaskCompleted',
] as const;

/** One of {@link CLAUDE_CODE_EVENTS}. */
export const ClaudeCodeEventSchema = z.enum(CLAUDE_CODE_EVENTS);
export type ClaudeCodeEvent = z.infer<typeof ClaudeCodeEventSchema>;

/** A PreToolUse permission decision: run without asking, refuse, or ask the user. */
export const ClaudeCodePermissionDecisionSchema = z.enum(['allow', 'deny', 'ask']);
export type ClaudeCodePermissionDecision = z.infer<typeof ClaudeCodePermissionDecisionSchema>;

/**
 * PermissionRequest's answer to Claude Code's permission dialog: allow (with `updatedInput`, the
 * input to run instead) or deny (with `message` for Claude); no decision shows the dialog.
 */
export const ClaudeCodePermissionDecisionObjectSchema = z.strictObject({
  behavior: z.enum(['allow', 'deny']),
  updatedInput: z.optional(z.record(z.string(), z.unknown())),
  message: z.optional(z.string()),
  interrupt: z.optional(z.boolean()),
});

/**
 * The event-specific part of an answer. `permissionDecision*` and `updatedInput` only mean
 * something for PreToolUse, `decision` for PermissionRequest; `additionalContext` (text added to
 * Claude's context) for PreToolUse, PostToolUse, UserPromptSubmit and SessionStart.
 */
export const ClaudeCodeHookSpecificOutputSchema = z.strictObject({
  hookEventName: ClaudeCodeEventSchema,
  permissionDecision: z.optional(ClaudeCodePermissionDecisionSchema),
  permissionDecisionReason: z.optional(z.string()),
  updatedInput: z.optional(z.record(z.string(), z.unknown())),
  additionalContext: z.optional(z.string()),
  decision: z.optional(ClaudeCodePermissionDecisionObjectSchema),
});
export type ClaudeCodeHookSpecificOutput = z.infer<typeof ClaudeCodeHookSpecificOutputSchema>;

/**
 * The answer to one hook, as Claude Code reads it. `decision: "block"` with `reason` is how
 * PostToolUse, UserPromptSubmit, Stop, SubagentStop, TeammateIdle, TaskCreated and TaskCompleted
 * are blocked (PreToolUse uses
 * `hookSpecificOutput.permissionDecision` instead); `systemMessage` is shown to the user;
 * `continue: false` with `stopReason` ends Claude's turn. An empty object means "no objection".
 */
export const ClaudeCodeHookOutputSchema = z.strictObject({
  continue: z.optional(z.boolean()),
  stopReason: z.optional(z.string()),
  suppressOutput: z.optional(z.boolean()),
  systemMessage: z.optional(z.string()),
  decision: z.optional(z.literal('block')),
  reason: z.optional(z.string()),
  hookSpecificOutput: z.optional(ClaudeCodeHookSpecificOutputSchema),
});
export type ClaudeCodeHookOutput = z.infer<typeof ClaudeCodeHookOutputSchema>;
