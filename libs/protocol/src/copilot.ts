/**
 * GitHub Copilot's hook wire format (the Copilot CLI and the cloud agent's repository hooks): the
 * camelCase payloads of the Copilot CLI hooks reference. Copilot does not name the event in a
 * camelCase payload — the hooks file does — so `ahp hook copilot <event>` adds it as
 * `hook_event_name` before posting (first, where the gateway's bounded scan reads it). The VS Code
 * compatible payloads (PascalCase events, snake_case fields) are renamed to these first
 * (`copilotCamelCaseInput`). Loose
 * objects, as for the other agents: fields Copilot adds are kept, never refused.
 */
import { z } from 'zod';

export {
  COPILOT_EVENTS,
  COPILOT_OUTPUT_SCHEMAS,
  COPILOT_PASCAL_EVENTS,
  COPILOT_UNEVALUATED_EVENTS,
  CopilotEventSchema,
  CopilotNotificationOutputSchema,
  CopilotPermissionRequestOutputSchema,
  CopilotPreToolUseOutputSchema,
  CopilotStopOutputSchema,
  copilotCamelCaseInput,
  copilotEventName,
  type CopilotEvent,
  type CopilotHookOutput,
} from './copilot-output.js';

const common = {
  sessionId: z.string().min(1).max(512),
  /** Unix milliseconds (camelCase payloads). */
  timestamp: z.union([z.number(), z.string().max(64)]).optional(),
  cwd: z.string().max(4096).optional(),
  transcriptPath: z.string().max(4096).optional(),
};

/**
 * A tool's arguments as an object, from what Copilot sends (the object, or its JSON text);
 * `undefined` when they are anything else (text that is not JSON, a number, a list). Absent
 * arguments read as none (`{}`).
 */
export function copilotToolArgs(args: unknown): Record<string, unknown> | undefined {
  let value = args;
  if (value === undefined) return {};
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return undefined;
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * A tool's arguments as Copilot sends them: an object, or its JSON text. Arguments that cannot be
 * read are refused with the hook (the command hook answers the refusal with a deny): a tool call
 * whose input the rules cannot see must not reach them as an empty or odd input, where a
 * configuration whose rules do not read the input would let it through.
 */
const tool = {
  toolName: z.string().min(1).max(256),
  toolArgs: z.unknown().refine((args) => copilotToolArgs(args) !== undefined, 'must be an object or the JSON text of one'),
};

/** The input of one Copilot hook, discriminated on the `hook_event_name` `ahp hook copilot` adds. */
export const CopilotHookInputSchema = z.discriminatedUnion('hook_event_name', [
  z.looseObject({ ...common, hook_event_name: z.literal('sessionStart'), source: z.string().max(64).optional(), initialPrompt: z.string().optional() }),
  z.looseObject({ ...common, hook_event_name: z.literal('sessionEnd'), reason: z.string().max(64).optional() }),
  z.looseObject({ ...common, hook_event_name: z.literal('userPromptSubmitted'), prompt: z.string() }),
  z.looseObject({ ...common, ...tool, hook_event_name: z.literal('preToolUse') }),
  z.looseObject({ ...common, ...tool, hook_event_name: z.literal('permissionRequest') }),
  z.looseObject({
    ...common,
    ...tool,
    hook_event_name: z.literal('postToolUse'),
    toolResult: z.looseObject({ resultType: z.string().max(64).optional(), textResultForLlm: z.string().optional() }).optional(),
  }),
  z.looseObject({ ...common, ...tool, hook_event_name: z.literal('postToolUseFailure'), error: z.string().optional() }),
  z.looseObject({ ...common, hook_event_name: z.literal('agentStop'), stopReason: z.string().max(64).optional() }),
  z.looseObject({ ...common, hook_event_name: z.literal('subagentStop'), stopReason: z.string().max(64).optional(), agentName: z.string().max(256).optional() }),
  z.looseObject({ ...common, hook_event_name: z.literal('preCompact'), trigger: z.string().max(64).optional(), customInstructions: z.string().optional() }),
]);
export type CopilotHookInput = z.infer<typeof CopilotHookInputSchema>;

/** One command hook of a Copilot hooks file (`{ type: "command", bash, powershell?, cwd?, env?, timeoutSec? }`); loose. */
export const CopilotHooksFileHandlerSchema = z.looseObject({ type: z.string(), bash: z.string().optional() });
export type CopilotHooksFileHandler = z.infer<typeof CopilotHooksFileHandlerSchema>;

/** A Copilot hooks file (`.github/hooks/*.json`, `~/.copilot/hooks/*.json`): `version: 1` and the handlers per event. */
export const CopilotHooksFileSchema = z.looseObject({
  version: z.literal(1).optional(),
  hooks: z.record(z.string(), z.array(CopilotHooksFileHandlerSchema)).optional(),
});
export type CopilotHooksFile = z.infer<typeof CopilotHooksFileSchema>;
