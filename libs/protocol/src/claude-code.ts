/**
 * Claude Code's hook wire format, as its hooks send it (stdin of a `command` hook, the POST body of
 * an `http` hook) and as they read the answer. These schemas describe a foreign format, so they
 * follow a different rule than AHP's own wire objects: the input is parsed with `z.looseObject`,
 * because Claude Code adds fields between releases (e.g. `permission_mode`, `tool_use_id`) and a
 * control plane that refused unknown fields would stop answering — which Claude Code treats as "let
 * the tool call through". Only the fields AHP reads are checked.
 */
import { z } from 'zod';


// The event list and the answer's schemas live in claude-code-output.ts (zod/mini, for the command
// hook's start-up); they are part of this module's interface as before.
export {
  CLAUDE_CODE_EVENTS,
  ClaudeCodeEventSchema,
  ClaudeCodeHookOutputSchema,
  ClaudeCodeHookSpecificOutputSchema,
  ClaudeCodePermissionDecisionSchema,
  type ClaudeCodeEvent,
  type ClaudeCodeHookOutput,
  type ClaudeCodeHookSpecificOutput,
  type ClaudeCodePermissionDecision,
} from './claude-code-output.js';

/** Fields every Claude Code hook input carries; `permission_mode` appears only in newer releases. */
const common = {
  session_id: z.string().min(1).max(512),
  transcript_path: z.string().max(4096).optional(),
  cwd: z.string().max(4096).optional(),
  permission_mode: z.string().max(64).optional(),
};

/** The team fields of the agent-team events. */
const team = {
  teammate_name: z.string().min(1).max(200).optional(),
  team_name: z.string().min(1).max(200).optional(),
};

/** A task of the team's shared task list, as TaskCreated and TaskCompleted send it. */
const teamTask = {
  ...team,
  task_id: z.string().min(1).max(200),
  task_subject: z.string().max(4096),
  task_description: z.string().optional(),
};

/** A JSON object of any shape (a tool's input or response is defined by the tool). */
const AnyObjectSchema = z.record(z.string(), z.unknown());

/**
 * The input of one Claude Code hook, discriminated on `hook_event_name`. Loose objects: fields
 * Claude Code adds are kept, never rejected (see the module comment).
 */
export const ClaudeCodeHookInputSchema = z.discriminatedUnion('hook_event_name', [
  z.looseObject({ ...common, hook_event_name: z.literal('PreToolUse'), tool_name: z.string().min(1), tool_input: AnyObjectSchema }),
  // Claude Code is about to show its permission dialog for this call.
  z.looseObject({ ...common, hook_event_name: z.literal('PermissionRequest'), tool_name: z.string().min(1), tool_input: AnyObjectSchema }),
  z.looseObject({
    ...common,
    hook_event_name: z.literal('PostToolUse'),
    tool_name: z.string().min(1),
    tool_input: AnyObjectSchema,
    tool_response: z.unknown().optional(),
  }),
  z.looseObject({ ...common, hook_event_name: z.literal('UserPromptSubmit'), prompt: z.string() }),
  z.looseObject({ ...common, hook_event_name: z.literal('Stop'), stop_hook_active: z.boolean().optional() }),
  z.looseObject({ ...common, hook_event_name: z.literal('SubagentStop'), stop_hook_active: z.boolean().optional() }),
  z.looseObject({ ...common, hook_event_name: z.literal('SessionStart'), source: z.string().optional() }),
  z.looseObject({ ...common, hook_event_name: z.literal('SessionEnd'), reason: z.string().optional() }),
  z.looseObject({
    ...common,
    hook_event_name: z.literal('PreCompact'),
    trigger: z.string().optional(),
    custom_instructions: z.string().nullable().optional(),
  }),
  // Agent teams. `team_name` is deprecated by Claude Code (a name derived from the session) but
  // still sent; the teammate is absent when the lead itself creates or completes a task.
  z.looseObject({ ...common, hook_event_name: z.literal('TeammateIdle'), ...team }),
  z.looseObject({ ...common, hook_event_name: z.literal('TaskCreated'), ...teamTask }),
  z.looseObject({ ...common, hook_event_name: z.literal('TaskCompleted'), ...teamTask }),
]);
export type ClaudeCodeHookInput = z.infer<typeof ClaudeCodeHookInputSchema>;

/**
 * A block or control signal a Claude Code PreToolUse received, kept (in Redis, per AHP session)
 * until the session's next hook tells what Claude Code did with it — the answer Claude Code
 * cannot send itself (docs/claude-code.md, "Answers"). `input_sha256` is the digest of the
 * tool input as Claude Code sent it; `tool_use_id` is Claude Code's id of the call, when it
 * sends one (newer releases), which PostToolUse repeats.
 */
export const ClaudeCodePendingAnswerSchema = z.strictObject({
  signal_id: z.uuid(),
  intensity: z.enum(['block', 'control']),
  tool_name: z.string().min(1).max(200),
  input_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  tool_use_id: z.string().min(1).max(200).optional(),
});
export type ClaudeCodePendingAnswer = z.infer<typeof ClaudeCodePendingAnswerSchema>;

/** The pending answers of one session: the signals of its last PreToolUse that Claude Code acted on. */
export const ClaudeCodePendingAnswersSchema = z.array(ClaudeCodePendingAnswerSchema).max(20);

/**
 * One hook of a Claude Code settings file: `{ type: "http", url, headers?, allowedEnvVars?,
 * timeout? }` or `{ type: "command", command, timeout? }`. Loose: `ahp init claude-code` rewrites
 * settings files that other tools and people also edit, so it keeps every field it does not know.
 */
export const ClaudeCodeSettingsHookSchema = z.looseObject({ type: z.string(), url: z.string().optional(), command: z.string().optional() });
export type ClaudeCodeSettingsHook = z.infer<typeof ClaudeCodeSettingsHookSchema>;

/** A matcher group of a hook event: the tools it matches (tool events only) and its hooks. */
export const ClaudeCodeSettingsMatcherSchema = z.looseObject({ matcher: z.string().optional(), hooks: z.array(ClaudeCodeSettingsHookSchema) });
export type ClaudeCodeSettingsMatcher = z.infer<typeof ClaudeCodeSettingsMatcherSchema>;

/**
 * The parts of a Claude Code settings file (`.claude/settings.json`, `.claude/settings.local.json`,
 * `~/.claude/settings.json`) that AHP reads and writes: `hooks` per event and the `env` Claude
 * Code sets for its sessions. Everything else is kept as it is.
 */
export const ClaudeCodeSettingsSchema = z.looseObject({
  hooks: z.record(z.string(), z.array(ClaudeCodeSettingsMatcherSchema)).optional(),
  env: z.record(z.string(), z.string()).optional(),
});
export type ClaudeCodeSettings = z.infer<typeof ClaudeCodeSettingsSchema>;
