/**
 * Shadow mode (docs/hooks.md, "Shadow a configuration"): the worker evaluates the shadow version
 * beside the live one and records where they differ.
 *
 * The live decision never waits for it: the processor hands a hook over only after `decide` stored
 * and routed the live decision, and the shadow evaluation starts on a later turn of the event
 * loop, outside the job (so the BullMQ slot is free again at once). At most `maxInFlight` shadow
 * evaluations run at a time; a hook arriving while they are all busy is not shadowed (counted in
 * `skippedBusy`), so an overloaded worker sheds the shadow's work, never the live work. The skipped
 * hooks are added to the shadow's counters in Redis about once a second (one script for all of
 * them, not one per hook: they happen when the worker is busiest), so the status says how much of
 * the traffic its disagreement rate covers.
 *
 * The shadow compares with the live decision as the oracles produced it, before any approval
 * round: the shadow never opens requests or uses grants, and its escalation counters are its own
 * (the caller compiles it with counters under another key prefix), so live counters are never
 * touched and the shadow's ladders progress as they would if it were live.
 */
import { shadowOutcomeOf, signalRuleName, strongestIntensity, type HookDecision, type HookJobData, type ShadowOutcome, type Signal, type StoredShadowConfig } from '@ahp/protocol';
import { StoreDataError, type Logger, type ShadowConfigStore, type ShadowObservation } from '@ahp/store';
import type { HookEvaluator } from './hooks-config.js';

/** Options of {@link createShadowRunner}. */
export interface ShadowRunnerOptions {
  readonly store: Pick<ShadowConfigStore, 'get' | 'watch' | 'record' | 'recordSkipped'>;
  /** Compiles a shadow with the worker's plugins and the shadow's own counters. Throws when it cannot. */
  readonly compile: (stored: StoredShadowConfig) => HookEvaluator | Promise<HookEvaluator>;
  readonly logger: Logger;
  /** Time each oracle gets. */
  readonly budgetMs: number;
  /** Shadow evaluations running at once, at most. @defaultValue `8` */
  readonly maxInFlight?: number;
  /** @defaultValue the store's default (5 s) */
  readonly recheckMs?: number;
  /** Delay before fetching a shadow again after Redis failed to deliver it. @defaultValue `1000` */
  readonly retryMs?: number;
  /** Longest time skipped hooks wait before they are counted in Redis. @defaultValue `1000` */
  readonly skippedFlushMs?: number;
  /** Epoch milliseconds. @defaultValue `Date.now` */
  readonly now?: () => number;
  readonly newId: () => string;
  /** Told what became of each hook handed over (Prometheus, see shadow-metrics.ts). Must not throw. @defaultValue none */
  readonly onOutcome?: (kind: ShadowOutcomeKind) => void;
}

/** What became of a hook handed to the shadow. */
export type ShadowOutcomeKind = 'agreed' | 'disagreed' | 'error' | 'skipped_busy';

/** Counters since the runner started. */
export interface ShadowRunnerStats {
  /** Hooks evaluated by the shadow and recorded. */
  compared: number;
  /** Of which the two decisions differed. */
  disagreed: number;
  /** Hooks not shadowed because `maxInFlight` evaluations were running. */
  skippedBusy: number;
  /** Shadow evaluations or recordings that failed. */
  failed: number;
}

export interface ShadowRunner {
  /** Loads the current shadow and starts watching for changes. */
  start(): Promise<void>;
  /** The shadow number being evaluated, or `null`. */
  active(): number | null;
  /**
   * Called once the live decision of `job` was stored and routed (never for a duplicate):
   * schedules the shadow evaluation and returns at once.
   */
  observe(job: HookJobData, live: HookDecision, timing: { startedAt: number }): void;
  /** Resolves when every scheduled shadow evaluation has finished (tests, shutdown). */
  drain(): Promise<void>;
  /** Resolves when every shadow change announced so far has been handled. */
  settled(): Promise<void>;
  stop(): Promise<void>;
  stats(): Readonly<ShadowRunnerStats>;
}

/** Name of the rule a signal came from: `<oracle>/<rule id>`, or the oracle alone (a built-in or plugin without rules). */
export function ruleNameOf(signal: Signal): string {
  // `|` separates the parts of a counter's field name in Redis.
  return signalRuleName(signal).replaceAll('|', '_');
}

/** Per rule, the strongest thing it did in a decision (an approval counts above a block). */
function rulesOf(decision: HookDecision): Map<string, ShadowOutcome> {
  const byRule = new Map<string, Signal[]>();
  for (const signal of decision.signals) {
    const name = ruleNameOf(signal);
    byRule.set(name, [...(byRule.get(name) ?? []), signal]);
  }
  const outcomes = new Map<string, ShadowOutcome>();
  for (const [name, signals] of byRule) {
    const outcome = shadowOutcomeOf({ signals, intensity: strongestIntensity(signals.map((s) => s.header.intensity)) });
    outcomes.set(name, outcome);
  }
  return outcomes;
}

/** Where two decisions for the same hook differ: their outcomes, the rules that fired in either, and those that did something else. */
export function compareDecisions(live: HookDecision, shadow: HookDecision): { live: ShadowOutcome; shadow: ShadowOutcome; fired: string[]; differing: string[] } {
  const liveRules = rulesOf(live);
  const shadowRules = rulesOf(shadow);
  const fired = [...new Set([...liveRules.keys(), ...shadowRules.keys()])].sort();
  const differing = fired.filter((rule) => liveRules.get(rule) !== shadowRules.get(rule));
  return { live: shadowOutcomeOf(live), shadow: shadowOutcomeOf(shadow), fired, differing };
}

interface Active {
  readonly shadow: number;
  readonly evaluator: HookEvaluator;
}

export function createShadowRunner(options: ShadowRunnerOptions): ShadowRunner {
  const { store, logger } = options;
  const now = options.now ?? Date.now;
  const maxInFlight = options.maxInFlight ?? 8;
  const retryMs = options.retryMs ?? 1_000;
  const stats: ShadowRunnerStats = { compared: 0, disagreed: 0, skippedBusy: 0, failed: 0 };
  let active: Active | null = null;
  /** The shadow the watch announced last (`null`: none). */
  let wanted: number | null = null;
  let chain: Promise<void> = Promise.resolve();
  const inFlight = new Set<Promise<void>>();
  let watch: { stop(): Promise<void> } | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let stopped = false;
  /** Hooks skipped per shadow number, not yet counted in Redis. */
  const skipped = new Map<number, number>();
  let skippedTimer: NodeJS.Timeout | undefined;
  let skippedFlush: Promise<void> = Promise.resolve();

  async function flushSkipped(): Promise<void> {
    skippedTimer = undefined;
    const counts = [...skipped];
    skipped.clear();
    for (const [shadow, count] of counts) {
      try {
        await store.recordSkipped(shadow, count);
      } catch (error) {
        logger.warn({ shadow, skipped: count, error: error instanceof Error ? error.message : String(error) }, 'counting hooks the shadow skipped failed');
      }
    }
  }

  async function load(shadow: number | null): Promise<void> {
    if (stopped || shadow !== wanted) return;
    if (shadow === null) {
      if (active !== null) logger.info({ shadow: active.shadow }, `shadow configuration ${active.shadow} no longer evaluated`);
      active = null;
      return;
    }
    if (active?.shadow === shadow) return;
    let stored: StoredShadowConfig | null;
    try {
      stored = await store.get(shadow);
    } catch (error) {
      if (!(error instanceof StoreDataError)) {
        logger.warn({ shadow, retryMs, error: error instanceof Error ? error.message : String(error) }, `fetching shadow configuration ${shadow} failed; retrying`);
        clearTimeout(retryTimer);
        retryTimer = setTimeout(() => enqueue(shadow, true), retryMs);
        retryTimer.unref();
        return;
      }
      stored = null;
      logger.error({ shadow, error: error.message }, `shadow configuration ${shadow} does not parse; not evaluated`);
    }
    if (stored === null || stopped || shadow !== wanted) return;
    try {
      active = { shadow, evaluator: await options.compile(stored) };
      logger.info({ shadow, liveVersionAtSet: stored.live_version }, `shadow configuration ${shadow} evaluated beside the live one`);
    } catch (error) {
      // The gateway validated it as completely as a publish; a worker whose plugins differ may still refuse it.
      active = null;
      logger.error({ shadow, error: error instanceof Error ? error.message : String(error) }, `shadow configuration ${shadow} does not compile on this worker; not evaluated`);
    }
  }

  function enqueue(shadow: number | null, retry = false): void {
    if (stopped || (!retry && shadow === wanted && (shadow === null || active?.shadow === shadow))) return;
    wanted = shadow;
    chain = chain.then(() => load(shadow));
  }

  async function evaluate(current: Active, job: HookJobData, live: HookDecision, budgetWindowMs: number): Promise<void> {
    let shadowDecision: HookDecision | undefined;
    try {
      shadowDecision = await current.evaluator.evaluate(
        { hookId: job.hook_id, trigger: job.trigger, context: job.context, agent: job.agent, sessionId: job.session_id },
        // The same time window the live evaluation had, counted from now: a shadow started after
        // the live deadline must not time out where the live version did not.
        { now: () => new Date(now()), newId: options.newId, budgetMs: options.budgetMs, deadlineAt: now() + budgetWindowMs, inputIsOwned: true },
      );
    } catch (error) {
      stats.failed += 1;
      options.onOutcome?.('error');
      logger.warn({ shadow: current.shadow, correlationId: job.hook_id, error: error instanceof Error ? error.message : String(error) }, 'shadow evaluation failed');
    }
    const compared = shadowDecision === undefined ? undefined : compareDecisions(live, shadowDecision);
    const observation: ShadowObservation = {
      shadow: current.shadow,
      hookId: job.hook_id,
      agentId: job.agent.id,
      trigger: job.trigger,
      at: now(),
      live: compared?.live ?? shadowOutcomeOf(live),
      shadowOutcome: compared?.shadow,
      liveVersion: live.config_version,
      fired: compared?.fired ?? [],
      differing: compared?.differing ?? [],
    };
    try {
      if (await store.record(observation)) {
        if (compared !== undefined) stats.compared += 1;
        if (compared !== undefined) options.onOutcome?.(compared.live === compared.shadow ? 'agreed' : 'disagreed');
        if (compared !== undefined && compared.live !== compared.shadow) {
          stats.disagreed += 1;
          logger.debug({ shadow: current.shadow, correlationId: job.hook_id, live: compared.live, shadowOutcome: compared.shadow, rules: compared.differing }, 'shadow disagrees with the live decision');
        }
      }
    } catch (error) {
      stats.failed += 1;
      if (compared !== undefined) options.onOutcome?.('error');
      logger.warn({ shadow: current.shadow, correlationId: job.hook_id, error: error instanceof Error ? error.message : String(error) }, 'recording a shadow evaluation failed');
    }
  }

  return {
    async start() {
      const opened = await store.watch((shadow) => enqueue(shadow), options.recheckMs === undefined ? {} : { recheckMs: options.recheckMs });
      if (stopped) await opened.stop();
      else watch = opened;
      await chain;
    },
    active: () => active?.shadow ?? null,
    observe(job, live, timing) {
      const current = active;
      if (current === null || stopped) return;
      if (inFlight.size >= maxInFlight) {
        stats.skippedBusy += 1;
        options.onOutcome?.('skipped_busy');
        skipped.set(current.shadow, (skipped.get(current.shadow) ?? 0) + 1);
        if (skippedTimer === undefined) {
          skippedTimer = setTimeout(() => {
            skippedFlush = skippedFlush.then(flushSkipped);
          }, options.skippedFlushMs ?? 1_000);
          skippedTimer.unref();
        }
        return;
      }
      const window = Math.max(1, job.deadline_at - timing.startedAt);
      // setImmediate: not one synchronous step of the shadow runs before the live job has returned.
      const run: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => evaluate(current, job, live, window))
        .finally(() => inFlight.delete(run));
      inFlight.add(run);
    },
    async drain() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    settled: async () => {
      for (;;) {
        const current = chain;
        await current;
        if (current === chain) return;
      }
    },
    async stop() {
      stopped = true;
      clearTimeout(retryTimer);
      await watch?.stop();
      await chain;
      while (inFlight.size > 0) await Promise.all([...inFlight]);
      clearTimeout(skippedTimer);
      await (skippedFlush = skippedFlush.then(flushSkipped));
    },
    stats: () => ({ ...stats }),
  };
}
