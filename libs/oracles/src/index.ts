/**
 * @ahp/oracles: hook evaluation. The {@link Oracle} plugin interface, {@link evaluateHook} (oracles
 * in order, time budgets, failure policy, aggregation), plugin loading and the built-in oracles.
 * The public API is this list of named exports; import nothing from deeper paths.
 */
export { ORACLE_NAME_PATTERN, oracleAppliesTo, oracleShapeProblem } from './oracle.js';
export type { Oracle, OracleContext, OracleInput, OracleVerdict } from './oracle.js';

export { evaluateHook } from './evaluate.js';
export type { EvaluateHookOptions, OracleOutcome, OracleRunReport } from './evaluate.js';

export { combineOracles, loadOraclePlugins } from './plugins.js';
export type { LoadOraclePluginsOptions } from './plugins.js';

export { createPermissionCheck } from './permission-check.js';
export type {
  PermissionCheckOptions,
  PermissionDenyRule,
  PermissionMatch,
  PermissionRewriteRule,
  PermissionWarnRule,
} from './permission-check.js';

export { DEFAULT_PERMISSION_RULES, defaultOracles } from './defaults.js';

export { OracleSetupError } from './errors.js';
export type { OracleSetupErrorCode } from './errors.js';
