/**
 * The answer to a GitHub Copilot hook (Copilot CLI and the Copilot cloud agent's repository hooks,
 * `.github/hooks/*.json`), as Copilot reads it from a command hook's stdout — the camelCase
 * events of the Copilot CLI hooks reference (the version targeted is named in
 * docs/coding-agents.md). Only three events read an answer: `preToolUse` (allow, deny, modified
 * arguments), `permissionRequest` (allow or deny the permission prompt) and `agentStop` /
 * `subagentStop` (block: another turn); the others are notifications, answered `{}`.
 *
 * Written with `zod/mini`: `ahp hook copilot` checks the gateway's answer with it, once per hook.
 */
import * as z from 'zod/mini';

/** The Copilot hook events AHP evaluates (docs/coding-agents.md, "GitHub Copilot"). */
export const COPILOT_EVENTS = [
  'sessionStart',
  'sessionEnd',
  'userPromptSubmitted',
  'preToolUse',
  'permissionRequest',
  'postToolUse',
  'postToolUseFailure',
  'agentStop',
  'subagentStop',
  'preCompact',
] as const;

/**
 * Copilot's VS Code compatible event names (PascalCase, chosen by naming the event that way in the
 * hooks file) and the camelCase event each one is. PermissionRequest has no PascalCase section in
 * the targeted reference; it is accepted by analogy with the others.
 */
export const COPILOT_PASCAL_EVENTS: Readonly<Record<string, string>> = Object.freeze({
  SessionStart: 'sessionStart',
  SessionEnd: 'sessionEnd',
  UserPromptSubmit: 'userPromptSubmitted',
  PreToolUse: 'preToolUse',
  PermissionRequest: 'permissionRequest',
  PostToolUse: 'postToolUse',
  PostToolUseFailure: 'postToolUseFailure',
  Stop: 'agentStop',
  SubagentStart: 'subagentStart',
  SubagentStop: 'subagentStop',
  PreCompact: 'preCompact',
  ErrorOccurred: 'errorOccurred',
  Notification: 'notification',
});

/** The camelCase event of a Copilot event name in either format (an unknown name as it is). */
export function copilotEventName(name: string): string {
  return Object.hasOwn(COPILOT_PASCAL_EVENTS, name) ? (COPILOT_PASCAL_EVENTS[name] ?? name) : name;
}

/** snake_case fields of the VS Code compatible payloads and their camelCase names. */
const SNAKE_FIELDS: Readonly<Record<string, string>> = Object.freeze({
  session_id: 'sessionId',
  transcript_path: 'transcriptPath',
  tool_name: 'toolName',
  tool_input: 'toolArgs',
  tool_result: 'toolResult',
  result_type: 'resultType',
  text_result_for_llm: 'textResultForLlm',
  stop_reason: 'stopReason',
  agent_name: 'agentName',
  agent_display_name: 'agentDisplayName',
  agent_description: 'agentDescription',
  custom_instructions: 'customInstructions',
  initial_prompt: 'initialPrompt',
  error_context: 'errorContext',
});

function camelFields(value: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const name = Object.hasOwn(SNAKE_FIELDS, key) ? (SNAKE_FIELDS[key] ?? key) : key;
    // A camelCase field that is there already wins over its snake_case twin.
    if (name !== key && Object.hasOwn(value, name)) continue;
    // tool_result's own fields are snake_case too; tool inputs are the tool's and stay as they are.
    out[name] = name === 'toolResult' && depth === 0 && typeof field === 'object' && field !== null && !Array.isArray(field) ? camelFields(field as Record<string, unknown>, 1) : field;
  }
  return out;
}

/**
 * A Copilot hook payload in the camelCase format AHP reads: a VS Code compatible one (PascalCase
 * `hook_event_name`, snake_case fields) is renamed field by field; a camelCase one is returned
 * as it is. Anything that is not an object is returned unchanged (the parse refuses it).
 */
export function copilotCamelCaseInput(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const record = body as Record<string, unknown>;
  const event = record['hook_event_name'];
  const renamed = camelFields(record, 0);
  return typeof event === 'string' ? { ...renamed, hook_event_name: copilotEventName(event) } : renamed;
}

/** Copilot events AHP receives but does not evaluate (no AHP trigger fits): answered `{}` by `ahp hook copilot` itself. */
export const COPILOT_UNEVALUATED_EVENTS = ['errorOccurred', 'subagentStart', 'notification'] as const;

export const CopilotEventSchema = z.enum(COPILOT_EVENTS);
export type CopilotEvent = z.infer<typeof CopilotEventSchema>;

/** preToolUse: deny needs a reason; `modifiedArgs` replaces the tool's arguments. */
export const CopilotPreToolUseOutputSchema = z.strictObject({
  permissionDecision: z.optional(z.enum(['allow', 'deny', 'ask'])),
  permissionDecisionReason: z.optional(z.string()),
  modifiedArgs: z.optional(z.record(z.string(), z.unknown())),
});

/** permissionRequest: `behavior` short-circuits Copilot's permission flow; nothing falls through to it. */
export const CopilotPermissionRequestOutputSchema = z.strictObject({
  behavior: z.optional(z.enum(['allow', 'deny'])),
  message: z.optional(z.string()),
  interrupt: z.optional(z.boolean()),
});

/** agentStop and subagentStop: `decision: "block"` forces another turn with `reason` as its prompt. */
export const CopilotStopOutputSchema = z.strictObject({ decision: z.optional(z.enum(['block', 'allow'])), reason: z.optional(z.string()) });

/** The events whose output Copilot does not process: AHP answers `{}`. */
export const CopilotNotificationOutputSchema = z.strictObject({});

export const COPILOT_OUTPUT_SCHEMAS = Object.freeze({
  sessionStart: CopilotNotificationOutputSchema,
  sessionEnd: CopilotNotificationOutputSchema,
  userPromptSubmitted: CopilotNotificationOutputSchema,
  preToolUse: CopilotPreToolUseOutputSchema,
  permissionRequest: CopilotPermissionRequestOutputSchema,
  postToolUse: CopilotNotificationOutputSchema,
  postToolUseFailure: CopilotNotificationOutputSchema,
  agentStop: CopilotStopOutputSchema,
  subagentStop: CopilotStopOutputSchema,
  preCompact: CopilotNotificationOutputSchema,
} satisfies Record<CopilotEvent, z.ZodMiniType>);

export type CopilotHookOutput = z.infer<(typeof COPILOT_OUTPUT_SCHEMAS)[CopilotEvent]>;
