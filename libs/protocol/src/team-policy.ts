/**
 * What a team's operators decide about its agents beyond the rules (`teams:` in
 * `.ahp/hooks.yaml`): the plan gate (docs/spec/teams.md#plan-gate: a teammate works only on an approved plan) and
 * which tools stay open while a plan is being written or reviewed.
 *
 * ```yaml
 * teams:
 *   "*":                      # every team not named below
 *     planning_tools: [read, grep, "fs.read*"]
 *   payments:
 *     require_plan: true      # teammates run no other tool before a plan of theirs is approved
 *     planning_tools: [read]
 * ```
 *
 * Pure data and functions: the gateway passes the policy's verdict for one hook to the open-hook
 * script, which reads the agent's plan state in Redis in the same step (libs/store).
 */
import { z } from 'zod';
import { boundedArray } from './primitives.js';
import type { AgentIdentity } from './agent.js';

/** Key of the policy that applies to every team without its own entry (and to agents without a team). */
export const ANY_TEAM = '*';

/**
 * A tool-name pattern: the name itself, or with `*` standing for any run of characters
 * (`fs.read*`, `*_search`). Case-sensitive, as tool names are.
 */
export const ToolNamePatternSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\s]+$/, 'must be a tool name, optionally with * wildcards, without spaces')
  .meta({ id: 'ToolNamePattern', description: 'A tool name, * matching any characters, e.g. "fs.read*".' });

/** One team's policy. Every field is optional; see {@link planGatePolicy} for the defaults. */
export const TeamPolicySchema = z
  .strictObject({
    /**
     * true: a teammate's tool calls are refused (`E_PLAN_REQUIRED`) until a plan it submitted is
     * approved, also before it submits any. false (default): the gate closes when it submits a
     * plan, and stays closed after a rejection or expiry until a plan is approved.
     */
    require_plan: z.boolean().optional(),
    /** Tools allowed while the gate is closed (reading, searching): patterns of `tool.name`. Default: none. */
    planning_tools: boundedArray(ToolNamePatternSchema, 100).optional(),
  })
  .meta({ id: 'TeamPolicy', description: 'A team: require_plan (false), planning_tools (tool-name patterns open while the plan gate is closed).' });
export type TeamPolicy = z.infer<typeof TeamPolicySchema>;

/** `teams:` of the hooks configuration: a team id, or {@link ANY_TEAM}, to its policy. */
export const TeamPoliciesSchema = z
  .record(
    z.string().regex(/^(\*|[A-Za-z0-9._:-]{1,128})$/, 'must be a team id (letters, digits and . _ : -) or "*" for every other team'),
    TeamPolicySchema,
  )
  .meta({ id: 'TeamPolicies', description: 'Team id (or "*") → team policy.' });
export type TeamPolicies = z.infer<typeof TeamPoliciesSchema>;

/** What the plan gate asks of one hook's agent. */
export interface PlanGatePolicy {
  /** The agent runs no tool (but planning tools) before a plan of its own is approved. */
  readonly requirePlan: boolean;
  readonly planningTools: readonly string[];
}

/**
 * The plan-gate policy of an agent: its team's entry, else the `*` entry, else the default
 * (no plan required, no planning tools). `require_plan` applies to teammates only: a lead (or an
 * agent without a role) reviews plans rather than writes them; the gate after a plan it did submit
 * applies to everyone.
 */
export function planGatePolicy(teams: TeamPolicies | undefined, agent: Pick<AgentIdentity, 'team' | 'role'>): PlanGatePolicy {
  const own = agent.team === undefined ? undefined : teams?.[agent.team];
  const policy = own ?? teams?.[ANY_TEAM] ?? {};
  return { requirePlan: policy.require_plan === true && agent.role === 'teammate', planningTools: policy.planning_tools ?? [] };
}

/** Whether `toolName` matches one of `patterns` (`*` matches any run of characters, nothing else is special). */
export function matchesToolPattern(patterns: readonly string[], toolName: string): boolean {
  return patterns.some((pattern) => globMatch(pattern, toolName));
}

function globMatch(pattern: string, name: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === name;
  const first = parts[0] ?? '';
  const last = parts[parts.length - 1] ?? '';
  if (!name.startsWith(first) || name.length < first.length + last.length || !name.endsWith(last)) return false;
  let at = first.length;
  const end = name.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = name.indexOf(middle, at);
    if (found < 0 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}
