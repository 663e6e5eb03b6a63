/**
 * The variables an expression sees when a rule is evaluated for one hook.
 */
import type { AgentIdentity, HookTrigger, JsonObject } from '@ahp/protocol';
import type { ExpressionScope } from '../expression/compile.js';
import { member } from '../expression/values.js';
import type { Value } from '../expression/values.js';

/** What a rule's expressions are evaluated against. */
export interface RuleScopeInput {
  /** The hook's context, with the facts a built-in oracle derived from it. */
  readonly context: Value;
  readonly agent: Readonly<AgentIdentity>;
  readonly trigger: HookTrigger;
  /** The configuration's `environment`, used when the context names none. */
  readonly defaultEnvironment: string | undefined;
  readonly params: Readonly<JsonObject>;
}

/**
 * The environment of a hook: `context.environment` when it is a non-empty string, else the
 * configuration's default, else `null`.
 */
export function environmentOf(context: Value, defaultEnvironment: string | undefined): string | null {
  const given = member(context, 'environment');
  if (typeof given === 'string' && given.length > 0) return given;
  return defaultEnvironment ?? null;
}

/** Builds the scope: the context at the top level, and the reserved names `agent`, `trigger`, `env`, `params`, `context`. */
export function ruleScope(input: RuleScopeInput): ExpressionScope {
  const agent: Record<string, Value> = { id: input.agent.id, name: input.agent.name };
  if (input.agent.team !== undefined) agent['team'] = input.agent.team;
  if (input.agent.role !== undefined) agent['role'] = input.agent.role;
  return {
    context: input.context,
    vars: {
      agent,
      trigger: input.trigger,
      env: environmentOf(input.context, input.defaultEnvironment),
      params: input.params as Value,
      context: input.context,
    },
  };
}

/** The same scope with other `params` (a rule's or an override's). */
export function withParams(scope: ExpressionScope, params: Readonly<JsonObject>): ExpressionScope {
  return { context: scope.context, vars: { ...scope.vars, params: params as Value } };
}
