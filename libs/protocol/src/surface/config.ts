/**
 * `@ahp/protocol/config`: the files and settings an operator writes — the hooks configuration,
 * team policies, notification channels and routes, the agent tokens file, the MCP gateway's
 * configuration and the Redis cluster nodes.
 */
export { MAX_CLUSTER_ROOT_NODES, RedisClusterNodesSchema, RedisClusterNodesTextSchema, RedisNodeAddressSchema } from '../redis-config.js';
export type { RedisNodeAddress } from '../redis-config.js';
export {
  DEFAULT_APPROVAL_DEADLINE_MS,
  HOOKS_CONFIG_LIMITS,
  HOOK_ORACLE_NAME_PATTERN,
  HookActionSchema,
  HookApprovalSchema,
  HookBudgetMsSchema,
  HookConfigSchema,
  HookDurationSchema,
  HookEscalationSchema,
  HookEscalationStepsSchema,
  HookExpressionLangSchema,
  HookExpressionSchema,
  HookOracleNameSchema,
  HookOracleSchema,
  HookRuleIdSchema,
  HookRuleOverrideSchema,
  HookRuleSchema,
  HookSuggestionSchema,
  HookTemplateSchema,
  HooksConfigSchema,
  durationToMs,
  escalationSteps,
} from '../hooks-config.js';
export type {
  HookAction,
  HookApproval,
  HookConfig,
  HookDuration,
  HookEscalation,
  HookExpressionLang,
  HookOracle,
  HookRule,
  HookRuleOverride,
  HookSuggestion,
  HooksConfig,
  HooksConfigIssueParams,
} from '../hooks-config.js';
export { DEFAULT_ANSWER_GRACE_MS, answerGraceMs } from '../hooks-config.js';
export { ANY_TEAM, TeamPoliciesSchema, TeamPolicySchema, ToolNamePatternSchema, matchesToolPattern, planGatePolicy } from '../team-policy.js';
export type { PlanGatePolicy, TeamPolicies, TeamPolicy } from '../team-policy.js';
export {
  EnvVariableNameSchema,
  NOTIFICATIONS_LIMITS,
  NOTIFICATION_CHANNEL_TYPES,
  NotificationChannelNameSchema,
  NotificationChannelSchema,
  NotificationRouteSchema,
  NotificationUrlSchema,
  NotificationsConfigSchema,
  SlackChannelSchema,
  WebhookChannelSchema,
  routeMatches,
  routeNotification,
  ChannelOperatorSchema,
  DecisionLinksSchema,
  EmailAddressSchema,
  EmailChannelSchema,
  EscalationTierSchema,
  escalationDelayMs,
  routeEscalation,
  PushChannelSchema,
} from '../notifications.js';
export type {
  NotificationChannel,
  NotificationRoute,
  NotificationsConfig,
  SlackChannel,
  WebhookChannel,
  DecisionLinks,
  EmailChannel,
  EscalationTier,
  RoutedEscalation,
  PushChannel,
} from '../notifications.js';
export {
  AgentTokenEntrySchema,
  AgentCredentialsFileSchema,
  AgentTokensFileSchema,
  Sha256HexSchema,
} from '../agent.js';
export type {
  AgentCredentialsFile,
  AgentTokenEntry,
  AgentTokensFile,
} from '../agent.js';
export {
  HookMcpCallSchema,
  McpGatewayConfigSchema,
  McpHttpUpstreamSchema,
  McpServerConfigSchema,
  McpServerIdSchema,
  McpStdioUpstreamSchema,
  McpToolPatternSchema,
  McpToolRuleSchema,
  McpToolSettingsSchema,
  mcpToolName,
  mcpToolVisible,
} from '../mcp-gateway.js';
export type { McpGatewayConfig, McpServerConfig, McpToolRule, McpToolSettings } from '../mcp-gateway.js';
