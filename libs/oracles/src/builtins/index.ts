/**
 * The built-in oracles a hooks.yaml can name.
 */
import { circuitBreaker } from './circuit-breaker.js';
import { permissionCheck } from './permission.js';
import { changeSizeLimiter, checklistValidator, testGate } from './quality-gates.js';
import type { BuiltinOracleDefinition } from './types.js';

const DEFINITIONS: readonly BuiltinOracleDefinition<unknown>[] = [checklistValidator, changeSizeLimiter, testGate, permissionCheck, circuitBreaker];

/** Built-in oracles by name, in the order docs/hooks.md lists them. */
export const BUILTIN_ORACLES: ReadonlyMap<string, BuiltinOracleDefinition<unknown>> = new Map(
  DEFINITIONS.map((definition) => [definition.name, definition]),
);
