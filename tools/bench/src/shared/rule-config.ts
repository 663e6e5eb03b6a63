/**
 * Which rules the benchmark evaluates with: the example configuration `.ahp/hooks.yaml`, compiled
 * by the rule engine, when the checkout has one; otherwise the workers' built-in default oracles.
 * The same choice is made for the `eval` baseline (in-process) and for the product (the
 * configuration is published to the stack's Redis before its workers start, as
 * `ahp config publish` would), and reported with the figures.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compileHooksConfig, createMemoryRuleCounters, defaultOracles, evaluateHook, parseHooksConfig } from '@ahp/oracles';
import type { OracleInput } from '@ahp/oracles';
import type { HookDecision, HooksConfig } from '@ahp/protocol';

/** Path of the example hooks configuration, relative to the workspace root. */
export const HOOKS_CONFIG_PATH = '.ahp/hooks.yaml';

/** What an evaluation needs besides the hook. */
export interface EvaluationClock {
  now: () => Date;
  newId: () => string;
  budgetMs: number;
}

/** The rules, ready to evaluate, and what they are. */
export interface BenchRules {
  description: string;
  evaluate(input: OracleInput, clock: EvaluationClock): Promise<HookDecision>;
  /** The configuration as text and parsed, when it is the example file (what gets published). */
  config?: { source: string; parsed: HooksConfig };
}

/** The built-in defaults, with why they were chosen. */
export function defaultRules(why: string): BenchRules {
  const oracles = defaultOracles();
  return {
    description: `defaultOracles() — ${why}`,
    evaluate: (input, clock) => evaluateHook({ input, oracles, ...clock }),
  };
}

export async function loadBenchRules(workspaceRoot: string): Promise<BenchRules> {
  const path = join(workspaceRoot, HOOKS_CONFIG_PATH);
  if (!existsSync(path)) return defaultRules(`${HOOKS_CONFIG_PATH} does not exist`);
  const source = await readFile(path, 'utf8');
  const parsed = parseHooksConfig(source);
  if (!parsed.ok) {
    const first = parsed.issues[0];
    return defaultRules(`${HOOKS_CONFIG_PATH} does not parse${first ? ` (line ${first.line}: ${first.message})` : ''}`);
  }
  try {
    const compiled = compileHooksConfig(parsed.config, { version: 0 });
    // In-process counters: the eval baseline measures the rules, not Redis.
    const counters = createMemoryRuleCounters();
    return {
      description: `compiled ${HOOKS_CONFIG_PATH}`,
      evaluate: (input, clock) => compiled.evaluate(input, { ...clock, counters }),
      config: { source, parsed: parsed.config },
    };
  } catch (error) {
    return defaultRules(`compiling ${HOOKS_CONFIG_PATH} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
