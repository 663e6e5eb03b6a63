/**
 * @ahp/oracles: hook evaluation. The {@link Oracle} plugin interface, {@link evaluateHook} (oracles
 * in order, time budgets, failure policy, aggregation), plugin loading, the built-in oracles, and
 * the pure half of the `.ahp/hooks.yaml` rule engine: loading with line-numbered errors, the
 * expression language, rule oracles, compiled once per configuration version (docs/hooks.md).
 * The public API is this list of named exports; import nothing from deeper paths.
 */
export { ORACLE_NAME_PATTERN, oracleAppliesTo, oracleShapeProblem } from './oracle.js';
export type { Oracle, OracleContext, OracleInput, OracleVerdict } from './oracle.js';

export { evaluateHook } from './evaluate.js';
export type { EvaluateHookOptions, OracleOutcome, OracleRunReport, OracleSettings } from './evaluate.js';

export { combineOracles, loadOraclePlugins } from './plugins.js';
export type { LoadOraclePluginsOptions } from './plugins.js';

export { createPermissionCheck } from './permission-check.js';
export type {
  PermissionCheckOptions,
  PermissionDenyRule,
  PermissionMatch,
  PermissionNotAllowed,
  PermissionRewriteRule,
  PermissionWarnRule,
} from './permission-check.js';

export { DEFAULT_PERMISSION_RULES, defaultOracles } from './defaults.js';

export { OracleSetupError } from './errors.js';
export type { OracleSetupErrorCode } from './errors.js';

// --- the hooks.yaml rule engine --------------------------------------------------------------
export { ConfigCompileError, formatConfigIssues } from './config/issues.js';
export type { ConfigIssue } from './config/issues.js';
export { MAX_HOOKS_CONFIG_CHARS, parseHooksConfig } from './config/parse.js';
export type { ParseResult } from './config/parse.js';
export { validateHooksConfig } from './config/validate.js';
export { lintHooksConfig } from './config/lint.js';
export { REDACTED_CREDENTIAL, redactHooksConfigCredentials } from './config/redact.js';
export type { RedactedConfig } from './config/redact.js';
export type { ConfigWarning, ConfigWarningKind, LintOptions } from './config/lint.js';
export type { ValidateHooksOptions, ValidateResult } from './config/validate.js';
export { DEFAULT_ORACLE_BUDGET_MS, compileHooksConfig } from './config/compile.js';
export type { CompileHooksOptions, CompiledHooks, EvaluationDeps } from './config/compile.js';

export { createMemoryRuleCounters } from './rules/counters.js';
export type { MemoryRuleCountersOptions, RuleCounters } from './rules/counters.js';
export { DEFAULT_ESCALATION_TTL_MS } from './rules/compile-rule.js';
export { MissingContextError } from './rules/missing-context.js';

export { BUILTIN_ORACLES } from './builtins/index.js';
export type { BuiltinOracleDefinition, BuiltinSetup } from './builtins/types.js';
export { canonicalJson, loopIteration, toolCallSignature } from './builtins/circuit-breaker.js';

export { ExpressionError } from './expression/errors.js';
export { FUNCTIONS, RESERVED_NAMES, compileExpression } from './expression/compile.js';
export type { CompiledExpression, ExpressionScope, ReservedName } from './expression/compile.js';
export { EXPRESSION_LIMITS } from './expression/parser.js';
export { compileTemplate } from './expression/template.js';
export type { CompiledTemplate } from './expression/template.js';
export type { Value as ExpressionValue } from './expression/values.js';

// --- replaying a candidate configuration over recorded hooks ---------------------------------
export { replayConfig } from './replay/replay.js';
export type { ReplayConfigOptions, ReplayInput } from './replay/replay.js';
