/**
 * Checking a hooks.yaml completely, as a person or a publishing tool would: YAML, schema, and
 * everything the compiler checks (expressions, oracle names, built-in options), each problem
 * with its line, column and field path; and, for a valid configuration, the lint warnings.
 */
import type { HooksConfig } from '@ahp/protocol';
import type { Oracle } from '../oracle.js';
import { compileChecked } from './compile.js';
import type { CompiledHooks } from './compile.js';
import type { ConfigIssue } from './issues.js';
import { lintHooksConfig } from './lint.js';
import type { ConfigWarning } from './lint.js';
import { locateAll, parseLocated } from './parse.js';

/** Options of {@link validateHooksConfig}. */
export interface ValidateHooksOptions {
  /** Plugin oracles the configuration may name. */
  plugins?: readonly Oracle[];
  /** The version the compiled result reports. @defaultValue 0 (not published) */
  version?: number;
}

/**
 * The outcome: on success also the lint warnings (lint.ts), which never make a configuration
 * invalid; a failed configuration is not linted (its issues come first).
 */
export type ValidateResult = { ok: true; config: HooksConfig; compiled: CompiledHooks; warnings: ConfigWarning[] } | { ok: false; issues: ConfigIssue[] };

/**
 * Parses and compiles `source`. On success the compiled configuration is ready to evaluate hooks
 * (with `version`, default 0); on failure every issue carries the position in `source` — for an
 * expression, of the offending character inside it when the YAML scalar allows that.
 */
export function validateHooksConfig(source: string, options: ValidateHooksOptions = {}): ValidateResult {
  const parsed = parseLocated(source);
  if (!parsed.ok) return parsed;
  const outcome = compileChecked(parsed.config, { version: options.version ?? 0, ...(options.plugins === undefined ? {} : { plugins: options.plugins }) });
  if (!outcome.ok) return { ok: false, issues: locateAll(parsed.located, outcome.issues) };
  const pluginNames = new Set((options.plugins ?? []).map((plugin) => plugin.name));
  return { ok: true, config: parsed.config, compiled: outcome.compiled, warnings: lintHooksConfig(parsed.config, parsed.located, { pluginNames }) };
}
