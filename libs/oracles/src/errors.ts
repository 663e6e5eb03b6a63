/**
 * Errors raised while setting oracles up (never while evaluating a hook: evaluation failures become
 * failure-policy decisions instead). Callers branch on `code`.
 */

/**
 * - `E_PLUGIN_LOAD`: a plugin module could not be imported (not found, syntax error, threw at load).
 * - `E_PLUGIN_SHAPE`: a plugin module exports nothing usable, or something that is not an oracle.
 * - `E_ORACLE_OPTIONS`: a built-in oracle got options it cannot work with (bad pattern, a rule
 *   whose intensity its triggers do not allow, …).
 * - `E_DUPLICATE_ORACLE`: two oracles share a name, which would make signal sources ambiguous.
 */
export type OracleSetupErrorCode = 'E_PLUGIN_LOAD' | 'E_PLUGIN_SHAPE' | 'E_ORACLE_OPTIONS' | 'E_DUPLICATE_ORACLE';

/** A problem with the oracle set itself, found before any hook is evaluated. Workers should refuse to start on it. */
export class OracleSetupError extends Error {
  override readonly name = 'OracleSetupError';
  readonly code: OracleSetupErrorCode;
  /** The plugin module concerned, as it was given, when there is one. */
  readonly module: string | undefined;

  constructor(code: OracleSetupErrorCode, message: string, options: { module?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.module = options.module;
  }
}
