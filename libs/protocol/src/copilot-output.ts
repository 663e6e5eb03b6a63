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
