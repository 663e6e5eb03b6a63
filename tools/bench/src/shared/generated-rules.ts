/**
 * Generated rule sets for the `rules` phase: what an organisation's policy looks like when it
 * grows — per-team command rules on shell tools (`lower(tool.name) in [...] and
 * tool.input.command matches /\bwordN\s+(sub|…)\b/`), per-tool rules (`tool.name == "mcp__…"`),
 * and path rules on file tools. Deterministic (rule `i` is always the same), and written so none
 * fires on the benchmark workload's ordinary events: the decisions stay those of the example
 * configuration, and the phase measures what the extra rules cost.
 */
import type { HookOracle, HookRule, HooksConfig } from '@ahp/protocol';
import { HOOKS_CONFIG_LIMITS } from '@ahp/protocol';

const SUBCOMMANDS = ['apply', 'destroy', 'delete', 'rollout', 'scale', 'drain', 'upgrade', 'uninstall', 'purge', 'wipe'];

/** Rule `i` of a generated set. */
export function generatedRule(i: number): HookRule {
  const kind = i % 10;
  const word = `tool${i.toString(36)}ctl`;
  const sub = SUBCOMMANDS[i % SUBCOMMANDS.length] as string;
  const other = SUBCOMMANDS[(i * 7 + 3) % SUBCOMMANDS.length] as string;
  if (kind < 7) {
    return {
      id: `gen-${i}`,
      condition: `lower(tool.name) in ["bash", "sh", "shell"] and tool.input.command matches /\\b${word}\\s+(${sub}|${other})\\b/`,
      intensity: 'block',
      type: 'security-violation',
      message: `${word} ${sub} is reserved to the platform team (rule gen-${i})`,
    };
  }
  if (kind < 9) {
    return {
      id: `gen-${i}`,
      condition: `tool.name == "mcp__${word}__write" and not (tool.input.path startswith "/tmp/")`,
      intensity: 'block',
      message: `mcp__${word}__write may only write under /tmp (rule gen-${i})`,
    };
  }
  return {
    id: `gen-${i}`,
    condition: `tool.name in ["Edit", "Write"] and tool.input.file_path matches "^/srv/${word}/"`,
    intensity: 'block',
    message: `/srv/${word} is managed by its deploy pipeline (rule gen-${i})`,
  };
}

/**
 * `config` with `count` generated rules added at `pre-tool-use`, in oracles of at most the
 * per-oracle cap, after the configured oracles.
 */
export function withGeneratedRules(config: HooksConfig, count: number): HooksConfig {
  if (count === 0) return config;
  const hook = config.hooks['pre-tool-use'] ?? { oracles: [] };
  const oracles: HookOracle[] = [];
  for (let start = 0; start < count; start += HOOKS_CONFIG_LIMITS.maxRulesPerOracle) {
    const end = Math.min(count, start + HOOKS_CONFIG_LIMITS.maxRulesPerOracle);
    oracles.push({ name: `generated-${oracles.length + 1}`, use: 'rules', rules: Array.from({ length: end - start }, (_, i) => generatedRule(start + i)) });
  }
  return { ...config, hooks: { ...config.hooks, 'pre-tool-use': { ...hook, oracles: [...hook.oracles, ...oracles] } } };
}
