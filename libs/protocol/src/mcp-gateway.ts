/**
 * The MCP gateway's configuration file (`AHP_MCP_CONFIG_FILE`, docs/mcp-gateway.md): which
 * upstream MCP servers a gateway puts itself in front of, which of their tools an agent may see,
 * how long a call may take and what happens when something in the way fails.
 *
 * The file is written by the people who run AHP, not by agents, but it is still a boundary: a
 * typo must stop the gateway at start-up with the path of the problem, never be read as "no
 * policy". Every object is strict, so a misspelt `deny` is an error rather than an empty list.
 */
import { z } from 'zod';
import { FailurePolicySchema } from './trigger.js';
import { AgentRoleSchema, type AgentIdentity } from './agent.js';
import { IdSchema, ShortStringSchema } from './primitives.js';
import { ToolNamePatternSchema, matchesToolPattern } from './team-policy.js';

/**
 * A server id: the path segment of `/v1/mcp/<id>` and the middle of the tool name the rules see
 * (`mcp__<id>__<tool>`), so lower-case letters, digits, `-` and no `__`.
 */
export const McpServerIdSchema = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,62})$/, 'must be 1-63 of a-z, 0-9 and -, starting with a letter or digit')
  .meta({ id: 'McpServerId', description: 'An upstream MCP server id: the path segment of /v1/mcp/<id>.' });

/** A tool name, or a pattern of them where `*` stands for any run of characters (`delete_*`), as in team policies. */
export const McpToolPatternSchema = ToolNamePatternSchema;

/**
 * An entry of `tools.allow` / `tools.deny`: a pattern for every agent, or patterns for the agents
 * whose token matches every scope given (`teams`, `roles`, `environments`; an absent scope matches
 * any agent, an agent without a team matches no `teams` scope).
 */
export const McpToolRuleSchema = z.union([
  McpToolPatternSchema,
  z.strictObject({
    tools: z.array(McpToolPatternSchema).min(1).max(1000),
    teams: z.array(IdSchema).min(1).max(1000).optional(),
    roles: z.array(AgentRoleSchema).min(1).optional(),
    environments: z.array(IdSchema).min(1).max(1000).optional(),
  }),
]);
export type McpToolRule = z.infer<typeof McpToolRuleSchema>;

/** A regular expression of the configuration, checked to compile (bounded: operators write these, but a typo must not reach the hot path). */
const RegexSourceSchema = z
  .string()
  .min(1)
  .max(512)
  .refine((source) => {
    try {
      new RegExp(source, 'g');
      return true;
    } catch {
      return false;
    }
  }, 'must be a valid JavaScript regular expression');

const TimeoutMsSchema = z.int().min(100).max(10 * 60 * 1000);

/** An upstream reached over Streamable HTTP. */
export const McpHttpUpstreamSchema = z
  .strictObject({
    url: z.url({ protocol: /^https?$/ }),
    /** Headers sent to the upstream on every request (its own credentials); never the agent's token. */
    headers: z.record(z.string().min(1).max(256), z.string().max(8192)).optional(),
  })
  .meta({ id: 'McpHttpUpstream', description: 'An upstream MCP server reached over Streamable HTTP.' });

/** An upstream the gateway launches and speaks to over stdio (one child per gateway process). */
export const McpStdioUpstreamSchema = z
  .strictObject({
    command: z.string().min(1).max(4096),
    args: z.array(z.string().max(4096)).max(256).optional(),
    env: z.record(z.string().min(1).max(256), z.string().max(8192)).optional(),
    cwd: z.string().min(1).max(4096).optional(),
  })
  .meta({ id: 'McpStdioUpstream', description: 'An upstream MCP server the gateway launches, spoken to over stdio.' });

/** Settings of one tool, overriding its server's. */
export const McpToolSettingsSchema = z.strictObject({
  timeout_ms: TimeoutMsSchema.optional(),
  failure_policy: FailurePolicySchema.optional(),
});

/** One upstream MCP server behind the gateway. */
export const McpServerConfigSchema = z
  .strictObject({
    id: McpServerIdSchema,
    upstream: z.union([McpHttpUpstreamSchema, McpStdioUpstreamSchema]),
    /** How long a call may wait for the upstream's answer (the connection included). */
    timeout_ms: TimeoutMsSchema.default(30_000),
    /**
     * What a call gets when its decision cannot be made (no worker answered before the deadline,
     * Redis down) or its result cannot be inspected: `fail_closed` refuses the call / withholds
     * the result; `fail_open` lets it through. An upstream that fails or times out is an error
     * either way: there is no result to let through.
     */
    failure_policy: FailurePolicySchema.default('fail_closed'),
    /**
     * How many calls one agent may have in flight on this server through one gateway process (its
     * decision, the upstream call and the result's inspection). The process shares one upstream
     * connection (one child for stdio) among all agents: the cap keeps one agent from occupying
     * it for everyone. Counted per process, in memory — no Redis command on the hot path — so an
     * agent spread over N gateways may have N times as many.
     */
    max_concurrent_calls_per_agent: z.int().min(1).max(1000).default(8),
    tools: z
      .strictObject({
        /** When given, only the tools an entry gives the agent exist for it. */
        allow: z.array(McpToolRuleSchema).max(1000).optional(),
        /** Tools the agents an entry names may not see or call; deny wins over allow. */
        deny: z.array(McpToolRuleSchema).max(1000).default([]),
        /** Per-tool timeout and failure policy, by exact tool name. */
        settings: z.record(ShortStringSchema, McpToolSettingsSchema).optional(),
      })
      .default({ deny: [] }),
    /** Patterns blanked out of every result of this server (besides the built-in secret patterns). */
    redact: z.strictObject({ patterns: z.array(RegexSourceSchema).max(100).default([]) }).default({ patterns: [] }),
  })
  .meta({ id: 'McpServerConfig', description: 'An upstream MCP server behind the AHP MCP gateway.' });

/** The whole file. */
export const McpGatewayConfigSchema = z
  .strictObject({
    version: z.literal(1),
    servers: z.array(McpServerConfigSchema).min(1).max(64),
  })
  .superRefine((config, context) => {
    const seen = new Set<string>();
    config.servers.forEach((server, index) => {
      if (seen.has(server.id)) context.addIssue({ code: 'custom', path: ['servers', index, 'id'], message: `server id "${server.id}" is used twice` });
      seen.add(server.id);
    });
  })
  .meta({ id: 'McpGatewayConfig', description: 'The MCP gateway configuration file (AHP_MCP_CONFIG_FILE).' });

export type McpServerConfig = z.infer<typeof McpServerConfigSchema>;
export type McpGatewayConfig = z.infer<typeof McpGatewayConfigSchema>;
export type McpToolSettings = z.infer<typeof McpToolSettingsSchema>;

/**
 * `mcp` in a tool hook's context: which server and which of its tools a call that came through
 * the MCP gateway is for. Set by the gateway, never by the client; `tool.name` is
 * `mcp__<server>__<tool>`, the name Claude Code gives MCP tools, so one rule covers a tool
 * whichever way the call arrives.
 */
export const HookMcpCallSchema = z
  .strictObject({
    server: McpServerIdSchema,
    tool: ShortStringSchema,
  })
  .meta({ id: 'HookMcpCall', description: 'mcp: { server, tool } of a call that came through the MCP gateway.' });

/** The tool name the rules see for `tool` of MCP server `server`. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

/** Whether `rule` covers `tool` for `agent`. */
function ruleCovers(rule: McpToolRule, tool: string, agent: Pick<AgentIdentity, 'team' | 'role' | 'environment'>): boolean {
  if (typeof rule === 'string') return matchesToolPattern([rule], tool);
  if (rule.teams !== undefined && (agent.team === undefined || !rule.teams.includes(agent.team))) return false;
  if (rule.roles !== undefined && (agent.role === undefined || !rule.roles.includes(agent.role))) return false;
  if (rule.environments !== undefined && (agent.environment === undefined || !rule.environments.includes(agent.environment))) return false;
  return matchesToolPattern(rule.tools, tool);
}

/**
 * Whether `agent` may see and call `tool` of `server`: no deny entry covers it for the agent, and,
 * when an allow list exists, an allow entry does. Decided on the token's team, role and
 * environment, never on anything the client says.
 */
export function mcpToolVisible(server: Pick<McpServerConfig, 'tools'>, tool: string, agent: Pick<AgentIdentity, 'team' | 'role' | 'environment'>): boolean {
  if (server.tools.deny.some((rule) => ruleCovers(rule, tool, agent))) return false;
  return server.tools.allow === undefined || server.tools.allow.some((rule) => ruleCovers(rule, tool, agent));
}
