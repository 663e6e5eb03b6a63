/**
 * Shared helpers of the rule-engine specs.
 */
import type { AgentIdentity, HookTrigger, JsonObject } from '@ahp/protocol';
import type { EvaluationDeps } from '../src/config/compile.js';
import type { ExpressionScope } from '../src/expression/compile.js';
import type { Value } from '../src/expression/values.js';
import type { OracleInput } from '../src/oracle.js';
import { createMemoryRuleCounters } from '../src/rules/counters.js';
import type { RuleCounters } from '../src/rules/counters.js';

export const AGENT: AgentIdentity = { id: 'agent-1', name: 'Agent One', team: 'core', role: 'teammate' };

/** An expression scope over `context`, with reserved names overridable. */
export function scopeOf(context: unknown, vars: Partial<ExpressionScope['vars']> = {}): ExpressionScope {
  return {
    context: context as Value,
    vars: {
      agent: { id: AGENT.id, name: AGENT.name, team: AGENT.team ?? null },
      trigger: 'pre-issue-submit',
      env: null,
      params: {},
      context: context as Value,
      ...vars,
    },
  };
}

/** Hook ids 00000000-0000-4000-a000-000000000001, …; signal ids in another range. */
export function hookIds(): () => string {
  let n = 0;
  return () => `00000000-0000-4000-a000-${String(++n).padStart(12, '0')}`;
}

export function signalIds(): () => string {
  let n = 0;
  return () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
}

/** A hook input; a fresh hook id each call unless given. */
export function hookInput(
  trigger: HookTrigger,
  context: JsonObject,
  options: { hookId?: string; agent?: AgentIdentity; sessionId?: string; nextId?: () => string } = {},
): OracleInput {
  return {
    hookId: options.hookId ?? (options.nextId ?? defaultHookIds)(),
    trigger,
    context,
    agent: options.agent ?? AGENT,
    sessionId: options.sessionId ?? 'session-1',
  };
}

const defaultHookIds = hookIds();

export const NOW = new Date('2026-02-09T10:00:00Z');

/** Evaluation deps with memory counters and a fixed clock. */
export function deps(overrides: Partial<EvaluationDeps> & { counters?: RuleCounters } = {}): EvaluationDeps {
  return { now: () => NOW, newId: signalIds(), counters: createMemoryRuleCounters(), ...overrides };
}

/** A deterministic generator of numbers in [0, 1) (mulberry32), so a failure names a case that can be replayed. */
export function random(start: number): () => number {
  let state = start;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
