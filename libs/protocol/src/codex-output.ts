/**
 * The answer to an OpenAI Codex hook, as Codex reads it from a command hook's stdout. One schema
 * per event, mirroring Codex's published output schemas
 * (`codex-rs/hooks/schema/generated/<event>.command.output.schema.json` in openai/codex; the
 * version targeted is named in docs/coding-agents.md). Codex parses each event's answer with
 * `deny_unknown_fields`, so a field another event allows makes the whole answer invalid: these
 * schemas are strict for the same reason.
 *
 * Written with `zod/mini` for the same reason as claude-code-output.ts: `ahp hook codex` checks
 * the gateway's answer with it, and Codex starts that command once per hook.
 */
import * as z from 'zod/mini';

/** The Codex hook events AHP maps (docs/coding-agents.md, "Codex"). */
export const CODEX_EVENTS = [
  'SessionStart',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'UserPromptSubmit',
  'Stop',
  'PreCompact',
  'PostCompact',
  'SubagentStart',
  'SubagentStop',
  'StopFailure',
] as const;

/** One of {@link CODEX_EVENTS}. */
export const CodexEventSchema = z.enum(CODEX_EVENTS);
export type CodexEvent = z.infer<typeof CodexEventSchema>;

/** Fields every event's answer may carry (Codex's `HookUniversalOutputWire`). */
const universal = {
  continue: z.optional(z.boolean()),
  stopReason: z.optional(z.string()),
  suppressOutput: z.optional(z.boolean()),
  systemMessage: z.optional(z.string()),
};

const specific = <E extends CodexEvent>(event: E) => ({ hookEventName: z.literal(event) });

/**
 * PreToolUse: deny with a non-empty `permissionDecisionReason`; `allow` only together with
 * `updatedInput` (Codex refuses a bare allow); `additionalContext` for the model. The legacy
 * top-level `decision: "block"` with `reason` is a deny too (`approve` Codex refuses).
 */
export const CodexPreToolUseOutputSchema = z.strictObject({
  ...universal,
  decision: z.optional(z.literal('block')),
  reason: z.optional(z.string()),
  hookSpecificOutput: z.optional(
    z.strictObject({
      ...specific('PreToolUse'),
      permissionDecision: z.optional(z.enum(['allow', 'deny'])),
      permissionDecisionReason: z.optional(z.string()),
      updatedInput: z.optional(z.record(z.string(), z.unknown())),
      additionalContext: z.optional(z.string()),
    }),
  ),
});

/** PermissionRequest: `decision.behavior` allow or deny (with `message`); no decision = Codex's own approval flow. */
export const CodexPermissionRequestOutputSchema = z.strictObject({
  ...universal,
  hookSpecificOutput: z.optional(
    z.strictObject({
      ...specific('PermissionRequest'),
      decision: z.optional(z.strictObject({ behavior: z.enum(['allow', 'deny']), message: z.optional(z.string()) })),
    }),
  ),
});

/** PostToolUse and UserPromptSubmit: `decision: "block"` with a non-empty `reason`, and `additionalContext`. */
const blockableWithContext = <E extends 'PostToolUse' | 'UserPromptSubmit'>(event: E) =>
  z.strictObject({
    ...universal,
    // PostToolUse's published schema allows only `suppressOutput: false` (Codex refuses the answer otherwise).
    suppressOutput: event === 'PostToolUse' ? z.optional(z.literal(false)) : universal.suppressOutput,
    decision: z.optional(z.literal('block')),
    reason: z.optional(z.string()),
    hookSpecificOutput: z.optional(z.strictObject({ ...specific(event), additionalContext: z.optional(z.string()) })),
  });
export const CodexPostToolUseOutputSchema = blockableWithContext('PostToolUse');
export const CodexUserPromptSubmitOutputSchema = blockableWithContext('UserPromptSubmit');

/** Stop and SubagentStop: `decision: "block"` makes Codex continue the (subagent's) turn with `reason` as its instruction. */
export const CodexStopOutputSchema = z.strictObject({ ...universal, decision: z.optional(z.literal('block')), reason: z.optional(z.string()) });

/** SubagentStart: `additionalContext` for the subagent's model. */
export const CodexSubagentStartOutputSchema = z.strictObject({
  ...universal,
  hookSpecificOutput: z.optional(z.strictObject({ ...specific('SubagentStart'), additionalContext: z.optional(z.string()) })),
});

/**
 * StopFailure (the turn ended on a model API error): the universal fields; Codex also reads a
 * `hookSpecificOutput.recovery` (retry, possibly on another model), which AHP never sends.
 */
export const CodexStopFailureOutputSchema = z.strictObject(universal);

/** SessionStart: `additionalContext` for the model. */
export const CodexSessionStartOutputSchema = z.strictObject({
  ...universal,
  hookSpecificOutput: z.optional(z.strictObject({ ...specific('SessionStart'), additionalContext: z.optional(z.string()) })),
});

/** PreCompact and PostCompact: the universal fields only. */
export const CodexCompactOutputSchema = z.strictObject(universal);

/** The answer schema of each event. */
export const CODEX_OUTPUT_SCHEMAS = Object.freeze({
  SessionStart: CodexSessionStartOutputSchema,
  PreToolUse: CodexPreToolUseOutputSchema,
  PermissionRequest: CodexPermissionRequestOutputSchema,
  PostToolUse: CodexPostToolUseOutputSchema,
  UserPromptSubmit: CodexUserPromptSubmitOutputSchema,
  Stop: CodexStopOutputSchema,
  PreCompact: CodexCompactOutputSchema,
  PostCompact: CodexCompactOutputSchema,
  SubagentStart: CodexSubagentStartOutputSchema,
  SubagentStop: CodexStopOutputSchema,
  StopFailure: CodexStopFailureOutputSchema,
} satisfies Record<CodexEvent, z.ZodMiniType>);

/** An answer to some Codex event (the union of the event schemas' shapes). */
export type CodexHookOutput = z.infer<(typeof CODEX_OUTPUT_SCHEMAS)[CodexEvent]>;
