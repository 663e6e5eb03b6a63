/**
 * Which hooks configuration this worker evaluates, and swapping it without a restart.
 *
 * The configuration lives in Redis as numbered versions (`ConfigStore`). At start the worker
 * loads the current version; a watch tells it about every newer one, which it fetches, compiles
 * and swaps in. A job takes the evaluator that is active when it starts, so every decision is
 * produced by exactly one version and names it (`config_version`).
 */
import type { OracleInput, OracleRunReport } from '@ahp/oracles';
import type { HookDecision, HookTrigger, NotificationsConfig, StoredConfigVersion } from '@ahp/protocol';
import type { Logger, RedisConfigStore } from '@ahp/store';
import { StoreDataError } from '@ahp/store';

/** What an evaluation needs besides the hook's input. */
export interface EvaluateDeps {
  /** The clock for signal timestamps, `decided_at` and the deadline. */
  readonly now: () => Date;
  /** Mints signal ids. */
  readonly newId: () => string;
  /** Time each oracle gets (the worker's default; a configuration may set its own). */
  readonly budgetMs: number;
  /** Absolute deadline of the hook (epoch ms): no oracle runs past it. */
  readonly deadlineAt: number;
  /** Called after each oracle run, for logs. */
  readonly onOracleSettled?: (report: OracleRunReport) => void;
  /** The input is the job's own parsed data, nobody else's: frozen in place, not copied (see `EvaluateHookOptions.inputIsOwned`). */
  readonly inputIsOwned?: boolean;
}

/** One way of evaluating hooks: a compiled configuration version, or the built-in defaults. */
export interface HookEvaluator {
  /** The configuration version it embodies; `undefined` for the built-in defaults. */
  readonly version: number | undefined;
  /**
   * How long an agent has to answer this version's block and control signals at `trigger` (the
   * hook's `answer_grace`). @defaultValue `DEFAULT_ANSWER_GRACE_MS` of `@ahp/protocol`
   */
  readonly answerGraceMs?: (trigger: HookTrigger) => number;
  /** This version's `notifications:` section: where requests waiting for people are announced (none for the built-in defaults). */
  readonly notifications?: NotificationsConfig;
  evaluate(input: OracleInput, deps: EvaluateDeps): Promise<HookDecision>;
}

/** Options of {@link createHooksConfigRuntime}. */
export interface HooksConfigRuntimeOptions {
  readonly store: Pick<RedisConfigStore, 'current' | 'get' | 'watch'>;
  /** Compiles a stored version (with the worker's plugins). Throws when it cannot. */
  readonly compile: (stored: StoredConfigVersion) => HookEvaluator | Promise<HookEvaluator>;
  /** What to evaluate with while no version is published (or none compiles): the built-in defaults. */
  readonly fallback: HookEvaluator;
  readonly logger: Logger;
  /**
   * How often the watch re-reads the current version in case a pub/sub message was lost.
   * @defaultValue the store's default (5 s)
   */
  readonly recheckMs?: number;
  /**
   * Delay before fetching a version again after Redis failed to deliver it.
   * @defaultValue `1000`
   */
  readonly retryMs?: number;
  /**
   * At start, when the current version does not compile, how many older versions to try before
   * falling back to the built-in defaults: a worker that starts later then serves the same last
   * good version as the workers that were running when the bad one was published.
   * @defaultValue `20`
   */
  readonly maxStartFallbackVersions?: number;
}

/** The worker's configuration state. */
export interface HooksConfigRuntime {
  /** Loads the current version and starts watching for new ones. Call once. */
  start(): Promise<void>;
  /** The evaluator to use for a job that starts now. */
  active(): HookEvaluator;
  /** Resolves when every version announced so far has been handled (tests, shutdown). */
  settled(): Promise<void>;
  /** Stops the watch and any pending retry. */
  stop(): Promise<void>;
}

/** Fetching a version failed in a way that fetching again may fix (Redis unreachable). */
class TransientLoadError extends Error {
  override readonly name = 'TransientLoadError';
}

function errorFields(error: unknown): Record<string, unknown> {
  const cause = error instanceof TransientLoadError ? error.cause : error;
  if (cause instanceof Error) {
    const issues = (cause as { issues?: unknown }).issues;
    return { error: cause.message, errorName: cause.name, ...(Array.isArray(issues) ? { issues: issues.slice(0, 20) } : {}) };
  }
  return { error: String(cause) };
}

/**
 * Creates the runtime. Rules:
 *
 * - Versions only move forward: a version at or below the active one is ignored.
 * - Versions are handled one at a time, in the order announced; an announcement older than the
 *   newest one seen is skipped.
 * - A version that does not parse or compile is logged at error level with its issues and never
 *   tried again; the last good configuration keeps serving (the requirement: "the workers keep running
 *   on the last good configuration").
 * - A version Redis could not deliver (connection lost) is fetched again after `retryMs`, until it
 *   loads or a newer one supersedes it.
 * - At start, a current version that cannot be used makes the worker try older ones (see
 *   `maxStartFallbackVersions`), then the built-in defaults.
 */
export function createHooksConfigRuntime(options: HooksConfigRuntimeOptions): HooksConfigRuntime {
  const { store, compile, fallback, logger } = options;
  const retryMs = options.retryMs ?? 1_000;
  const maxStartFallback = options.maxStartFallbackVersions ?? 20;

  let active: HookEvaluator = fallback;
  /** Highest version announced so far. */
  let wanted = 0;
  /** Versions that failed for good. */
  const rejected = new Set<number>();
  let chain: Promise<void> = Promise.resolve();
  let retryTimer: NodeJS.Timeout | undefined;
  let watch: { stop(): Promise<void> } | undefined;
  let stopped = false;

  const serving = () => (active.version === undefined ? 'the built-in defaults' : `version ${active.version}`);

  /** Compiles a stored version. Throws TransientLoadError when Redis failed, anything else when the version is unusable. */
  async function compileStored(stored: StoredConfigVersion): Promise<HookEvaluator> {
    const evaluator = await compile(stored);
    if (evaluator.version !== stored.version) {
      throw new Error(`compiled configuration reports version ${String(evaluator.version)}, expected ${stored.version}`);
    }
    return evaluator;
  }

  async function fetchAndCompile(version: number): Promise<HookEvaluator> {
    let stored: StoredConfigVersion | null;
    try {
      stored = await store.get(version);
    } catch (error) {
      if (error instanceof StoreDataError) throw error;
      throw new TransientLoadError(`fetching version ${version} failed`, { cause: error });
    }
    if (stored === null) throw new StoreDataError(`config version ${version}`, 'was announced but is not stored');
    return compileStored(stored);
  }

  function swap(evaluator: HookEvaluator, how: string): void {
    const previous = active.version;
    active = evaluator;
    logger.info({ configVersion: evaluator.version, previousConfigVersion: previous ?? null }, `hooks configuration version ${String(evaluator.version)} active (${how})`);
  }

  function reject(version: number, error: unknown, what: string): void {
    rejected.add(version);
    logger.error({ configVersion: version, activeConfigVersion: active.version ?? null, ...errorFields(error) }, what);
  }

  async function load(version: number): Promise<void> {
    if (stopped || version <= (active.version ?? 0) || version < wanted || rejected.has(version)) return;
    try {
      const evaluator = await fetchAndCompile(version);
      if (stopped || version < wanted) return;
      swap(evaluator, 'published while running');
    } catch (error) {
      if (!(error instanceof TransientLoadError)) {
        reject(version, error, `hooks configuration version ${version} cannot be used; still serving ${serving()}`);
        return;
      }
      logger.warn({ configVersion: version, retryMs, ...errorFields(error) }, `fetching hooks configuration version ${version} failed; retrying`);
      clearTimeout(retryTimer);
      retryTimer = setTimeout(() => enqueue(version, true), retryMs);
      retryTimer.unref();
    }
  }

  function enqueue(version: number, retry = false): void {
    if (stopped) return;
    if (!retry && version <= wanted) return;
    wanted = Math.max(wanted, version);
    chain = chain.then(() => load(version));
  }

  async function initial(): Promise<void> {
    let current: StoredConfigVersion | null;
    try {
      current = await store.current();
    } catch (error) {
      if (!(error instanceof StoreDataError)) throw error;
      // The stored version does not parse (written by another release?): its number is the field of the error.
      const version = Number(error.field);
      if (!Number.isSafeInteger(version) || version <= 0) throw error;
      reject(version, error, `hooks configuration version ${version} does not parse; trying older versions`);
      return startFrom(version);
    }
    if (current === null) {
      logger.info({}, 'no hooks configuration published: evaluating with the built-in defaults');
      return;
    }
    wanted = current.version;
    try {
      swap(await compileStored(current), 'current at start');
    } catch (error) {
      reject(current.version, error, `hooks configuration version ${current.version} does not compile; trying older versions`);
      await startFrom(current.version);
    }
  }

  /** Serves the newest version below `current` that loads, looking back at most `maxStartFallback` versions. */
  async function startFrom(current: number): Promise<void> {
    wanted = Math.max(wanted, current);
    for (let version = current - 1; version >= 1 && version >= current - maxStartFallback; version -= 1) {
      try {
        swap(await fetchAndCompile(version), `last good version at start; version ${current} is current and cannot be used`);
        return;
      } catch (error) {
        if (error instanceof TransientLoadError) throw error.cause;
        reject(version, error, `hooks configuration version ${version} cannot be used either`);
      }
    }
    logger.error({ configVersion: current }, 'no usable hooks configuration version: evaluating with the built-in defaults until a good version is published');
  }

  return {
    async start() {
      await initial();
      if (stopped) return;
      const opened = await store.watch((version) => enqueue(version), options.recheckMs === undefined ? {} : { recheckMs: options.recheckMs });
      if (stopped) await opened.stop();
      else watch = opened;
    },
    active: () => active,
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
    },
  };
}
