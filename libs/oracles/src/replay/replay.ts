/**
 * Replaying a compiled candidate configuration over recorded hooks (docs/hooks.md, "Replay a
 * candidate configuration"): each recorded context is evaluated with `CompiledHooks.evaluate` —
 * the very code the workers run — and its outcome compared with the recorded decision's, by the
 * classification shadow mode uses too (`replayOutcomeOf`, decision-outcome.ts of @ahp/protocol).
 *
 * Escalation and circuit-breaker counters are simulated in this replay's own memory
 * ({@link createMemoryRuleCounters}), per agent and session as the workers keep them, on a clock
 * that reads each recorded hook's time: so `escalate_after` and counter TTLs behave as they would
 * have over that traffic. The live counters in Redis are never read or touched. The simulation
 * starts empty at the window's start: streaks carried over from before it are not known.
 */
import { randomUUID } from 'node:crypto';
import {
  MAX_REPLAY_EXAMPLES,
  isStrongerOutcome,
  replayDecisionOf,
  replayOutcomeOf,
  transitionName,
  type ConfigReplayReport,
  type ReplayAgentChange,
  type ReplayDecision,
  type ReplayExample,
  type ReplayOutcome,
  type ReplayOracleError,
  type ReplayRecord,
  type ReplayRuleChange,
  type ReplayTransition,
} from '@ahp/protocol';
import type { CompiledHooks } from '../config/compile.js';
import type { OracleRunReport } from '../evaluate.js';
import { createMemoryRuleCounters } from '../rules/counters.js';

/** What the replay reads: recorded hooks, oldest first, and entries that did not parse (counted). */
export type ReplayInput = { readonly kind: 'record'; readonly record: ReplayRecord } | { readonly kind: 'unreadable' };

/** Options of {@link replayConfig}. */
export interface ReplayConfigOptions {
  /** The candidate, compiled (with the plugins the workers load). */
  readonly compiled: CompiledHooks;
  /** Recorded hooks of the window, oldest first (`ReplayLog.read` of `@ahp/store`). */
  readonly records: AsyncIterable<ReplayInput>;
  /** The window (epoch ms, `until` exclusive), for the report and the progress fraction. */
  readonly sinceMs: number;
  readonly untilMs: number;
  /** Evaluate at most this many hooks; the report says `truncated` when the window held more. */
  readonly limit: number;
  /** Time each oracle gets unless the candidate says. @defaultValue the compiler's default */
  readonly budgetMs?: number;
  /** Examples kept per kind. @defaultValue {@link MAX_REPLAY_EXAMPLES} */
  readonly maxExamples?: number;
  /**
   * Called every `checkpointEvery` hooks read and once at the end, with how far the replay got.
   * It may throw (a cancelled replay): the replay stops and the error propagates.
   */
  readonly checkpoint?: (progress: { read: number; fraction: number }) => Promise<void> | void;
  /** @defaultValue `200` */
  readonly checkpointEvery?: number;
  /** Mints signal ids. @defaultValue `crypto.randomUUID` */
  readonly newId?: () => string;
}

/** Counts per `from→to`, as the report lists them (most frequent first). */
class Transitions {
  private readonly counts = new Map<string, ReplayTransition>();

  add(from: ReplayOutcome, to: ReplayOutcome): void {
    const key = transitionName(from, to);
    const entry = this.counts.get(key);
    if (entry === undefined) this.counts.set(key, { from, to, count: 1 });
    else entry.count += 1;
  }

  list(): ReplayTransition[] {
    return [...this.counts.values()].sort((a, b) => b.count - a.count || transitionName(a.from, a.to).localeCompare(transitionName(b.from, b.to)));
  }
}

function sameRules(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((rule, i) => rule === b[i]);
}

/**
 * Evaluates `compiled` on every recorded hook and reports what changes. Never rejects for what
 * an oracle does (its errors are counted in `oracle_errors`); rejects only when `records` or
 * `checkpoint` does.
 */
export async function replayConfig(options: ReplayConfigOptions): Promise<ConfigReplayReport> {
  const { compiled, sinceMs, untilMs, limit } = options;
  const maxExamples = options.maxExamples ?? MAX_REPLAY_EXAMPLES;
  const every = options.checkpointEvery ?? 200;
  const newId = options.newId ?? randomUUID;
  let clock = sinceMs;
  const counters = createMemoryRuleCounters({ now: () => clock });

  let read = 0;
  let total = 0;
  let unchanged = 0;
  let rulesChanged = 0;
  let oversize = 0;
  let unreadable = 0;
  let truncated = false;
  let approvalCount = 0;
  const transitions = new Transitions();
  const byRule = new Map<string, { changed: number; transitions: Transitions }>();
  const byAgent = new Map<string, { total: number; changed: number; transitions: Transitions }>();
  const versions = new Map<number | 'defaults', number>();
  const examples: ReplayExample[] = [];
  const approvalExamples: ReplayExample[] = [];
  const oracleErrors = new Map<string, ReplayOracleError>();

  const fraction = (at: number) => (untilMs <= sinceMs ? 1 : Math.min(1, Math.max(0, (at - sinceMs) / (untilMs - sinceMs))));

  function example(record: ReplayRecord, before: ReplayDecision, after: ReplayDecision): ReplayExample {
    return {
      hook_id: record.hook_id,
      agent_id: record.agent.id,
      session_id: record.session_id,
      trigger: record.trigger,
      at: new Date(record.at).toISOString(),
      ...(record.config_version === undefined ? {} : { config_version: record.config_version }),
      before,
      after,
      context: record.context ?? {},
    };
  }

  function noteOracle(record: ReplayRecord, report: OracleRunReport): void {
    if (report.outcome === 'answered') return;
    const key = `${report.oracle}\u0000${report.outcome}`;
    const entry = oracleErrors.get(key);
    if (entry !== undefined) entry.count += 1;
    else {
      const message = report.message ?? (report.error instanceof Error ? report.error.message : String(report.error ?? report.outcome));
      oracleErrors.set(key, { oracle: report.oracle.slice(0, 256), outcome: report.outcome, count: 1, message: message.slice(0, 4096), example_hook_id: record.hook_id });
    }
  }

  async function evaluate(record: ReplayRecord): Promise<void> {
    const context = record.context;
    if (context === undefined) {
      oversize += 1;
      return;
    }
    clock = Math.max(clock, record.at);
    const decision = await compiled.evaluate(
      { hookId: record.hook_id, trigger: record.trigger, context, agent: record.agent, sessionId: record.session_id },
      {
        now: () => new Date(record.at),
        newId,
        counters,
        ...(options.budgetMs === undefined ? {} : { budgetMs: options.budgetMs }),
        onOracleSettled: (report) => noteOracle(record, report),
      },
    );
    const before = record.decision;
    const after = replayDecisionOf(decision);
    total += 1;
    const version = record.config_version ?? 'defaults';
    versions.set(version, (versions.get(version) ?? 0) + 1);
    let agent = byAgent.get(record.agent.id);
    if (agent === undefined) {
      agent = { total: 0, changed: 0, transitions: new Transitions() };
      byAgent.set(record.agent.id, agent);
    }
    agent.total += 1;
    if (after.approval) {
      approvalCount += 1;
      if (approvalExamples.length < maxExamples) approvalExamples.push(example(record, before, after));
    }
    const from = replayOutcomeOf(before);
    const to = replayOutcomeOf(after);
    if (from === to) {
      unchanged += 1;
      if (!sameRules(before.rules, after.rules)) rulesChanged += 1;
      return;
    }
    transitions.add(from, to);
    agent.changed += 1;
    agent.transitions.add(from, to);
    // Attributed to the side that intervenes more: the rules that now fire, or no longer do.
    const rules = isStrongerOutcome(to, from) ? after.rules : before.rules;
    for (const rule of rules.length === 0 ? ['(none)'] : rules) {
      let entry = byRule.get(rule);
      if (entry === undefined) {
        entry = { changed: 0, transitions: new Transitions() };
        byRule.set(rule, entry);
      }
      entry.changed += 1;
      entry.transitions.add(from, to);
    }
    if (examples.length < maxExamples) examples.push(example(record, before, after));
  }

  let lastAt = sinceMs;
  for await (const item of options.records) {
    if (item.kind === 'unreadable') unreadable += 1;
    else {
      if (total + oversize >= limit) {
        truncated = true;
        break;
      }
      lastAt = item.record.at;
      await evaluate(item.record);
    }
    read += 1;
    if (read % every === 0) await options.checkpoint?.({ read, fraction: fraction(lastAt) });
  }
  await options.checkpoint?.({ read, fraction: 1 });

  const ruleChanges: ReplayRuleChange[] = [...byRule.entries()]
    .map(([rule, entry]) => ({ rule, changed: entry.changed, transitions: entry.transitions.list() }))
    .sort((a, b) => b.changed - a.changed || a.rule.localeCompare(b.rule));
  const agentChanges: ReplayAgentChange[] = [...byAgent.entries()]
    .map(([agentId, entry]) => ({ agent_id: agentId, total: entry.total, changed: entry.changed, transitions: entry.transitions.list() }))
    .sort((a, b) => b.changed - a.changed || b.total - a.total || a.agent_id.localeCompare(b.agent_id));
  return {
    since: new Date(sinceMs).toISOString(),
    until: new Date(untilMs).toISOString(),
    total,
    unchanged,
    changed: total - unchanged,
    rules_changed: rulesChanged,
    skipped: { oversize, unreadable },
    truncated,
    recorded_versions: [...versions.entries()]
      .map(([version, count]) => ({ version, count }))
      .sort((a, b) => (a.version === 'defaults' ? -1 : b.version === 'defaults' ? 1 : a.version - b.version)),
    transitions: transitions.list(),
    by_rule: ruleChanges.slice(0, 1000),
    by_agent: agentChanges.slice(0, 1000),
    examples,
    approvals: { count: approvalCount, examples: approvalExamples },
    oracle_errors: [...oracleErrors.values()].sort((a, b) => b.count - a.count).slice(0, 1000),
  };
}
