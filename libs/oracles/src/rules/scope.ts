/**
 * The variables an expression sees when a rule is evaluated for one hook.
 */
import type { AgentIdentity, HookTrigger, JsonObject } from '@ahp/protocol';
import type { ExpressionScope } from '../expression/compile.js';
import type { Value } from '../expression/values.js';

/** What a rule's expressions are evaluated against. */
export interface RuleScopeInput {
  /** The hook's context, with the facts a built-in oracle derived from it. */
  readonly context: Value;
  readonly agent: Readonly<AgentIdentity>;
  readonly trigger: HookTrigger;
  /** The configuration's `environment`, used when the agent's token names none. */
  readonly defaultEnvironment: string | undefined;
  readonly params: Readonly<JsonObject>;
}

/**
 * The environment of a hook: the agent's, from its token (`agent.environment`), else the
 * configuration's default, else `null`. Never the context: an agent must not pick how strict its
 * own rules are (a context with a top-level `environment` is refused at the gateway).
 */
export function environmentOf(agent: Readonly<AgentIdentity>, defaultEnvironment: string | undefined): string | null {
  return agent.environment ?? defaultEnvironment ?? null;
}

/** Builds the scope: the context at the top level, and the reserved names `agent`, `trigger`, `env`, `params`, `context`. */
export function ruleScope(input: RuleScopeInput): ExpressionScope {
  const agent: Record<string, Value> = { id: input.agent.id, name: input.agent.name };
  if (input.agent.team !== undefined) agent['team'] = input.agent.team;
  if (input.agent.role !== undefined) agent['role'] = input.agent.role;
  const env = environmentOf(input.agent, input.defaultEnvironment);
  if (env !== null) agent['environment'] = env;
  return {
    context: input.context,
    vars: {
      agent,
      trigger: input.trigger,
      env,
      params: input.params as Value,
      context: input.context,
    },
  };
}

/** The same scope with other `params` (a rule's or an override's). */
export function withParams(scope: ExpressionScope, params: Readonly<JsonObject>): ExpressionScope {
  return { context: scope.context, vars: { ...scope.vars, params: params as Value } };
}
