/**
 * Recording what a later replay needs (docs/hooks.md, "Replay a candidate configuration"): for each
 * evaluated hook, the context and the oracles' decision go to the replay log (`ReplayLog` of
 * `@ahp/store`: redacted, size-capped, trimmed by count and age).
 *
 * Off the decision's path: the processor starts the append in the turn of the event loop right
 * after the one in which node-redis wrote `decide` (so the redaction never delays that write),
 * pipelined on the connection with whatever else is in flight, and awaits it alongside the
 * decision's reply, so the job takes no extra round trip. A failed append is logged and counted,
 * and never fails or delays the hook. Cost measured by tools/bench/src/micro/replay-log-cost.ts.
 */
import type { HookDecision, HookJobData } from '@ahp/protocol';
import type { Logger, ReplayLog } from '@ahp/store';

/** Records one evaluated hook; never rejects. */
export type ReplayRecorder = (job: HookJobData, evaluated: HookDecision, configVersion: number | undefined) => Promise<void>;

/** Options of {@link createReplayRecorder}. */
export interface ReplayRecorderOptions {
  readonly log: Pick<ReplayLog, 'append'>;
  readonly logger: Logger;
  /** Epoch ms. @defaultValue `Date.now` */
  readonly now?: () => number;
  /** Told of each append that failed (metrics). @defaultValue none */
  readonly onFailure?: () => void;
}

/** Failures logged at most once per this many ms, so an outage does not flood the log (each decision logs its own failure anyway). */
const FAILURE_LOG_INTERVAL_MS = 10_000;

export function createReplayRecorder(options: ReplayRecorderOptions): ReplayRecorder {
  const now = options.now ?? Date.now;
  let lastLogged = Number.NEGATIVE_INFINITY;
  let unlogged = 0;
  return async (job, evaluated, configVersion) => {
    try {
      await options.log.append({
        hookId: job.hook_id,
        trigger: job.trigger,
        agent: job.agent,
        sessionId: job.session_id,
        context: job.context,
        decision: evaluated,
        configVersion,
        at: now(),
      });
    } catch (error) {
      options.onFailure?.();
      unlogged += 1;
      if (now() - lastLogged < FAILURE_LOG_INTERVAL_MS) return;
      options.logger.warn(
        { correlationId: job.hook_id, agentId: job.agent.id, failures: unlogged, error: error instanceof Error ? error.message : String(error) },
        'recording a hook in the replay log failed; its decision is not affected',
      );
      lastLogged = now();
      unlogged = 0;
    }
  };
}
