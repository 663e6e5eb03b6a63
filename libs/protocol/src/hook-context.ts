/**
 * The typed context of each hook trigger: what an agent may put in `hook.context`, and so what
 * the rules of `.ahp/hooks.yaml` can read. The gateway checks every hook's context against its
 * trigger's schema before anything is recorded or queued ({@link parseHookContext}); a context
 * that does not fit is refused with `E_INVALID_CONTEXT`, naming the path.
 *
 * Why: the rules read fixed paths (`tool.name`, `tool.input.command`, `files.changed_count`). A
 * context of another shape used to read as "nothing there", so no deny rule matched and the call
 * was allowed without a word (docs/protocol.md once showed `{"tool": "db.migrate", "input": …}`,
 * which the default rules never see). Every object here is strict: an unknown field is an error,
 * never ignored. Data of the agent's own goes under `extra`, the one free-form area; rules may
 * read it (`extra.ticket`), and must treat it as what it is — the agent's word.
 *
 * Nothing in a context decides how strict the rules are: the environment, team and role come from
 * the agent's token (`agent.environment`, `agent.team`, `agent.role`, and `env`), never from here.
 * The triggers are a closed set (`HookTriggerSchema`); a hook for any other trigger is refused
 * with `E_INVALID_FRAME` before its context is looked at.
 */
import { z } from 'zod';
import { makeError, type AhpError } from './errors.js';
import { reportIssues } from './issues.js';
import { ToolTextObjectSchema, ToolTextValueSchema } from './hook-context-limits.js';
import { IdSchema, JsonObjectSchema, LongTextSchema, ShortStringSchema, TextSchema, boundedArray } from './primitives.js';
import type { JsonObject } from './primitives.js';
import { HookApprovalRefSchema } from './tool-approval.js';
import { HookMcpCallSchema } from './mcp-gateway.js';
import type { HookTrigger } from './trigger.js';

const Count = z.int().min(0).max(1_000_000_000);

/** The free-form area: anything JSON, the agent's own. Never read by a built-in oracle. */
export const HookContextExtraSchema = JsonObjectSchema.meta({
  id: 'HookContextExtra',
  description: "Free-form data of the agent's own (bounded JSON). Rules may read it as extra.<field>; nothing in it is trusted.",
});

/** A tool call as the rules read it: `tool.name`, `tool.input.<argument>`. */
export const HookToolCallSchema = z
  .strictObject({
    name: ShortStringSchema,
    /** The tool's arguments, as the tool takes them (e.g. `{ "command": "ls" }` for a shell); strings up to 256 KiB (a file a Write creates). */
    input: ToolTextObjectSchema,
  })
  .meta({ id: 'HookToolCall', description: 'A tool call: { name, input } with input the arguments object.' });

/** A tool call after it ran (`post-tool-use`): the call plus what came back. */
export const HookToolResultSchema = z
  .strictObject({
    name: ShortStringSchema,
    input: ToolTextObjectSchema,
    /** Whether the call succeeded. */
    ok: z.boolean().optional(),
    /** The output as text, up to 256 KiB (the SDK's reference loop sends at most 4,000 characters). */
    output: LongTextSchema.optional(),
    /** The tool's structured response (Claude Code's `tool_response`); strings up to 256 KiB. */
    response: ToolTextValueSchema.optional(),
  })
  .meta({ id: 'HookToolResult', description: 'A tool call that ran: { name, input, ok?, output?, response? }.' });

/** `checklist`: the items, or the agent's own counts (checklist-validator derives the counts from `items`). */
export const HookChecklistSchema = z
  .strictObject({
    items: boundedArray(
      z.strictObject({
        id: ShortStringSchema.optional(),
        title: TextSchema.optional(),
        done: z.boolean().optional(),
        status: ShortStringSchema.optional(),
      }),
      1000,
    ).optional(),
    total: Count.optional(),
    completed_count: Count.optional(),
    incomplete_count: Count.optional(),
    completion_rate: z.number().min(0).max(1).optional(),
    incomplete_ids: boundedArray(ShortStringSchema, 1000).optional(),
  })
  .meta({ id: 'HookChecklist', description: 'checklist: items [{id, title, done | status}] or counts.' });

/** `files`: the changed paths, or their count (change-size-limiter derives the count from `changed`). */
export const HookFilesSchema = z
  .strictObject({
    changed: boundedArray(TextSchema, 100_000).optional(),
    changed_count: Count.optional(),
  })
  .meta({ id: 'HookFiles', description: 'files: changed (paths) or changed_count.' });

/** `tests`: the failing tests, or counts (test-gate derives `failed_count` from `failed`). */
export const HookTestsSchema = z
  .strictObject({
    failed: boundedArray(z.union([TextSchema, z.strictObject({ name: TextSchema })]), 10_000).optional(),
    failed_count: Count.optional(),
    passed_count: Count.optional(),
    total: Count.optional(),
  })
  .meta({ id: 'HookTests', description: 'tests: failed (names) or failed_count, passed_count, total.' });

/** `coverage`: the current figure and, optionally, the threshold (test-gate's option otherwise). */
export const HookCoverageSchema = z
  .strictObject({
    current: z.number().min(0).max(100).optional(),
    threshold: z.number().min(0).max(100).optional(),
  })
  .meta({ id: 'HookCoverage', description: 'coverage: current and threshold, in percent.' });

/** `issue`: the work item the hook is about. */
export const HookIssueSchema = z
  .strictObject({
    id: ShortStringSchema,
    title: TextSchema.optional(),
    status: ShortStringSchema.optional(),
  })
  .meta({ id: 'HookIssue', description: 'issue: { id, title?, status? }.' });

/** `review` (after a submit): what the agent knows of the review. */
export const HookReviewSchema = z
  .strictObject({
    expected_response_hours: z.number().min(0).max(10_000).optional(),
    reviewers: boundedArray(ShortStringSchema, 100).optional(),
  })
  .meta({ id: 'HookReview', description: 'review: expected_response_hours, reviewers.' });

/** The Claude Code session a context came from (set by the gateway's Claude Code endpoint). */
export const HookClaudeSessionSchema = z
  .strictObject({
    session_id: TextSchema.optional(),
    transcript_path: TextSchema.optional(),
    permission_mode: ShortStringSchema.optional(),
    hook_event_name: ShortStringSchema.optional(),
  })
  .meta({ id: 'HookClaudeSession', description: 'claude: the Claude Code session fields of a hook that came through /v1/claude-code/hooks.' });

/**
 * The coding agent a context came from: Codex or GitHub Copilot through their hook endpoints
 * (docs/coding-agents.md), and Claude Code at its PermissionRequest only (its session fields keep
 * their own `claude` key; `client` there carries the `permission_prompt` mark the rules share).
 * `hook_event_name` is the agent's own event name, and `permission_prompt` marks the agent's own
 * permission prompt, so a rule can tell e.g. Codex's PermissionRequest from its PreToolUse, which
 * both are `pre-tool-use`.
 */
export const HookAgentClientSchema = z
  .strictObject({
    kind: z.enum(['claude-code', 'codex', 'copilot']),
    hook_event_name: ShortStringSchema,
    session_id: TextSchema.optional(),
    transcript_path: TextSchema.optional(),
    permission_mode: ShortStringSchema.optional(),
    model: ShortStringSchema.optional(),
    turn_id: ShortStringSchema.optional(),
    tool_use_id: ShortStringSchema.optional(),
    /** The subagent that started or stopped: Copilot's name of it, Codex's `agent_type` (its role). */
    agent_name: ShortStringSchema.optional(),
    /** Codex: the id of the subagent that started or stopped. */
    agent_id: ShortStringSchema.optional(),
    /** Codex's StopFailure: the kind of model API error that ended the turn (rate_limit, overloaded, …). */
    error: ShortStringSchema.optional(),
    /**
     * True at the agent's own permission prompt (Codex's PermissionRequest, Copilot's
     * permissionRequest): a rule for remote approval reads `default(client.permission_prompt, false)`
     * rather than each agent's spelling of the event.
     */
    permission_prompt: z.boolean().optional(),
    /**
     * Claude Code agent teams: which team event the hook is (its TeammateIdle, TaskCreated,
     * TaskCompleted), so a rule at `stop` or `post-tool-use` tells a teammate going idle or
     * claiming a task done from an ordinary end of turn or tool call.
     */
    team_event: z.enum(['teammate_idle', 'task_created', 'task_completed']).optional(),
    team_name: ShortStringSchema.optional(),
    teammate_name: ShortStringSchema.optional(),
    /** The task of a TaskCreated or TaskCompleted. */
    task: z.strictObject({ id: ShortStringSchema, subject: TextSchema.optional(), description: TextSchema.optional() }).optional(),
  })
  .meta({ id: 'HookAgentClient', description: 'client: the coding agent (codex, copilot) and its session fields of a hook that came through /v1/hooks/<kind>.' });

/** Fields every trigger's context may have. */
const common = {
  /** Free-form data of the agent's own. */
  extra: HookContextExtraSchema.optional(),
  /** The agent's working directory. */
  cwd: TextSchema.optional(),
  /** The agent loop's iteration (the circuit breaker counts it). */
  loop: z.strictObject({ iteration: z.int().min(0).max(Number.MAX_SAFE_INTEGER) }).optional(),
  /** The plan step the agent works on. */
  plan_step: IdSchema.optional(),
  claude: HookClaudeSessionSchema.optional(),
  client: HookAgentClientSchema.optional(),
};

/** The facts of a piece of work, read by the quality gates (docs/spec/hooks-and-oracles.md#quality-gates). */
const work = {
  issue: HookIssueSchema.optional(),
  checklist: HookChecklistSchema.optional(),
  files: HookFilesSchema.optional(),
  tests: HookTestsSchema.optional(),
  coverage: HookCoverageSchema.optional(),
};

const issueContext = (id: string, description: string) =>
  z.strictObject({ ...common, ...work, review: HookReviewSchema.optional() }).meta({ id, description });

/**
 * The context schema of each trigger. `pre-tool-use` and `post-tool-use` require `tool`;
 * `user-prompt-submit` requires `prompt`; every other field is optional (a rule that reads a field
 * the hook does not have fails closed in the engine, see docs/hooks.md).
 */
export const HOOK_CONTEXT_SCHEMAS = Object.freeze({
  'pre-issue-start': issueContext('PreIssueStartContext', 'Context of pre-issue-start: the issue and its facts.'),
  'post-issue-start': issueContext('PostIssueStartContext', 'Context of post-issue-start.'),
  'pre-tool-use': z
    .strictObject({ ...common, tool: HookToolCallSchema, approval: HookApprovalRefSchema.optional(), mcp: HookMcpCallSchema.optional() })
    .meta({ id: 'PreToolUseContext', description: 'Context of pre-tool-use: tool { name, input }; approval when re-sending an approved call.' }),
  'post-tool-use': z
    .strictObject({ ...common, tool: HookToolResultSchema, mcp: HookMcpCallSchema.optional() })
    .meta({ id: 'PostToolUseContext', description: 'Context of post-tool-use: the tool call and its outcome.' }),
  'pre-issue-submit': issueContext('PreIssueSubmitContext', 'Context of pre-issue-submit: checklist, files, tests, coverage (docs/spec/hooks-and-oracles.md#quality-gates).'),
  'post-issue-submit': issueContext('PostIssueSubmitContext', 'Context of post-issue-submit: the issue and review.'),
  'pre-issue-close': issueContext('PreIssueCloseContext', 'Context of pre-issue-close: the issue and its facts.'),
  'post-issue-close': issueContext('PostIssueCloseContext', 'Context of post-issue-close.'),
  'session-start': z
    .strictObject({ ...common, source: ShortStringSchema.optional() })
    .meta({ id: 'SessionStartContext', description: 'Context of session-start: source (startup, resume, …).' }),
  'session-end': z
    .strictObject({ ...common, reason: ShortStringSchema.optional() })
    .meta({ id: 'SessionEndContext', description: 'Context of session-end: reason.' }),
  'user-prompt-submit': z
    .strictObject({ ...common, prompt: LongTextSchema })
    .meta({ id: 'UserPromptSubmitContext', description: 'Context of user-prompt-submit: the prompt.' }),
  stop: z
    .strictObject({
      ...common,
      ...work,
      stop_reason: ShortStringSchema.optional(),
      stop_hook_active: z.boolean().optional(),
      subagent: z.boolean().optional(),
    })
    .meta({ id: 'StopContext', description: 'Context of stop: stop_reason, and the facts of the work (checklist, tests).' }),
  'task-complete': z
    .strictObject({ ...common, ...work, task: z.strictObject({ id: ShortStringSchema.optional(), summary: TextSchema.optional() }).optional() })
    .meta({ id: 'TaskCompleteContext', description: 'Context of task-complete: the task and the facts of the work.' }),
  'pre-compact': z
    .strictObject({ ...common, trigger: ShortStringSchema.optional(), custom_instructions: TextSchema.optional() })
    .meta({ id: 'PreCompactContext', description: 'Context of pre-compact: trigger (manual, auto), custom_instructions.' }),
  'post-compact': z
    .strictObject({ ...common, trigger: ShortStringSchema.optional() })
    .meta({ id: 'PostCompactContext', description: 'Context of post-compact: trigger (manual, auto).' }),
} satisfies Record<HookTrigger, z.ZodType>);

/** Every trigger's context schema in one object, for the JSON Schema export: property = trigger. */
export const HookContextsSchema = z
  .strictObject(HOOK_CONTEXT_SCHEMAS)
  .partial()
  .meta({ id: 'HookContexts', description: 'The context schema of each hook trigger, by trigger name.' });

/** The outcome of {@link parseHookContext}. */
export type HookContextParseResult = { ok: true; context: JsonObject } | { ok: false; error: AhpError };

/**
 * Checks `context` against `trigger`'s schema. Never throws. On failure the error is
 * `E_INVALID_CONTEXT` whose message names the first problem's path (`context.tool: …`) and whose
 * `details.issues` lists up to ten, each `{ path, message }`, paths from `context`.
 */
export function parseHookContext(trigger: HookTrigger, context: unknown): HookContextParseResult {
  try {
    const result = HOOK_CONTEXT_SCHEMAS[trigger].safeParse(context);
    if (result.success) return { ok: true, context: context as JsonObject };
    const all = result.error.issues;
    const issues = reportIssues(all, { prefix: ['context'] });
    const first = issues[0];
    const more = all.length > 1 ? ` (and ${all.length - 1} more issue${all.length > 2 ? 's' : ''})` : '';
    const message = `invalid ${trigger} context: ${first === undefined ? 'invalid' : `${first.path}: ${first.message}`}${more}; see docs/protocol.md, "Hook contexts"`;
    return { ok: false, error: makeError('E_INVALID_CONTEXT', message, { trigger, issue_count: all.length, issues }) };
  } catch {
    return { ok: false, error: makeError('E_INTERNAL', 'the hook context could not be checked') };
  }
}
