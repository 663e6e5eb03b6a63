/**
 * OpenAI Codex's hook wire format: the JSON a Codex command hook reads on stdin (its published
 * input schemas, `codex-rs/hooks/schema/generated/<event>.command.input.schema.json`; the version
 * targeted is named in docs/coding-agents.md). As for Claude Code, this is a foreign format, so
 * inputs are `z.looseObject`: Codex adds fields between releases (`turn_id`, `model`, subagent
 * fields) and refusing them would stop AHP from answering. Only the fields AHP reads are checked.
 */
import { z } from 'zod';

export {
  CODEX_EVENTS,
  CODEX_OUTPUT_SCHEMAS,
  CodexCompactOutputSchema,
  CodexEventSchema,
  CodexPermissionRequestOutputSchema,
  CodexPostToolUseOutputSchema,
  CodexPreToolUseOutputSchema,
  CodexSessionStartOutputSchema,
  CodexStopFailureOutputSchema,
  CodexStopOutputSchema,
  CodexSubagentStartOutputSchema,
  CodexUserPromptSubmitOutputSchema,
  type CodexEvent,
  type CodexHookOutput,
} from './codex-output.js';

/** Fields of every Codex hook input (`transcript_path` is null when Codex keeps no transcript). */
const common = {
  session_id: z.string().min(1).max(512),
  transcript_path: z.string().max(4096).nullable().optional(),
  cwd: z.string().max(4096).optional(),
  model: z.string().max(256).optional(),
  permission_mode: z.string().max(64).optional(),
  turn_id: z.string().max(256).optional(),
};

/** A tool's arguments: Codex sends an object (`{ command }` for Bash, the patch for apply_patch, an MCP tool's arguments). */
const ToolInputSchema = z.record(z.string(), z.unknown());
const tool = { tool_name: z.string().min(1).max(256), tool_input: ToolInputSchema, tool_use_id: z.string().max(256).optional() };

/** The subagent a SubagentStart or SubagentStop is about. */
const subagent = { agent_id: z.string().min(1).max(256), agent_type: z.string().max(256).optional() };

/** The input of one Codex hook, discriminated on `hook_event_name`. */
export const CodexHookInputSchema = z.discriminatedUnion('hook_event_name', [
  z.looseObject({ ...common, hook_event_name: z.literal('SessionStart'), source: z.string().max(64).optional() }),
  z.looseObject({ ...common, ...tool, hook_event_name: z.literal('PreToolUse') }),
  z.looseObject({ ...common, ...tool, hook_event_name: z.literal('PermissionRequest') }),
  z.looseObject({ ...common, ...tool, hook_event_name: z.literal('PostToolUse'), tool_response: z.unknown().optional() }),
  z.looseObject({ ...common, hook_event_name: z.literal('UserPromptSubmit'), prompt: z.string() }),
  z.looseObject({
    ...common,
    hook_event_name: z.literal('Stop'),
    stop_hook_active: z.boolean().optional(),
    last_assistant_message: z.string().nullable().optional(),
  }),
  z.looseObject({ ...common, hook_event_name: z.literal('PreCompact'), trigger: z.string().max(64).optional() }),
  z.looseObject({ ...common, hook_event_name: z.literal('PostCompact'), trigger: z.string().max(64).optional() }),
  // A subagent (spawned by the session's agent) starts and ends; agent_type is its role (`explorer`, `worker`, …).
  z.looseObject({ ...common, ...subagent, hook_event_name: z.literal('SubagentStart') }),
  z.looseObject({
    ...common,
    ...subagent,
    hook_event_name: z.literal('SubagentStop'),
    stop_hook_active: z.boolean().optional(),
    last_assistant_message: z.string().nullable().optional(),
  }),
  // The turn ended on a model API error: `error` is Codex's category (rate_limit, overloaded, …).
  z.looseObject({
    ...common,
    hook_event_name: z.literal('StopFailure'),
    error: z.string().min(1).max(64),
    error_details: z.string().nullable().optional(),
    last_assistant_message: z.string().nullable().optional(),
  }),
]);
export type CodexHookInput = z.infer<typeof CodexHookInputSchema>;

/** One handler of a Codex hooks file: `{ type: "command", command, timeout? }` (loose: `ahp init codex` keeps what it does not know). */
export const CodexHooksFileHandlerSchema = z.looseObject({ type: z.string(), command: z.string().optional() });

/** A matcher group of a Codex hook event: the tools (or sources) it matches, and its handlers. */
export const CodexHooksFileGroupSchema = z.looseObject({ matcher: z.string().optional(), hooks: z.array(CodexHooksFileHandlerSchema) });
export type CodexHooksFileGroup = z.infer<typeof CodexHooksFileGroupSchema>;

/**
 * A Codex `hooks.json` (`<repo>/.codex/hooks.json`, `~/.codex/hooks.json`): `hooks` per event.
 * Codex refuses other keys at the root than `description` and `hooks`, so `ahp init codex` adds
 * none; the rest of what it finds is kept as it is.
 */
export const CodexHooksFileSchema = z.looseObject({
  description: z.string().nullable().optional(),
  hooks: z.record(z.string(), z.array(CodexHooksFileGroupSchema)).optional(),
});
export type CodexHooksFile = z.infer<typeof CodexHooksFileSchema>;
