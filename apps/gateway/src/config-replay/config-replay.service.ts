import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import {
  DEFAULT_REPLAY_LIMIT,
  makeError,
  type ConfigReplayRequest,
  type ConfigReplayStatus,
  type OperatorIdentity,
} from '@ahp/protocol';
import { createConfigReplayQueue, type ConfigReplayQueue, type RedisClient, type StoreKeys } from '@ahp/store';
import { LOGGER } from '../config/config.tokens.js';
import { ConfigApiService } from '../config-api/config-api.service.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { OperatorApiError } from '../operator-api/api-error.js';
import { REDIS, STORE_KEYS } from '../store/store.tokens.js';

/**
 * Replays waiting or running at once, in the whole deployment: each is CPU on a worker, and any
 * role may ask for one, so a burst of submissions is refused rather than queued without end.
 */
export const MAX_UNFINISHED_REPLAYS = 8;

/**
 * Replays of candidate configurations for operators (docs/hooks.md, "Replay a candidate
 * configuration"): the candidate is validated here exactly as a publish would validate it, then
 * handed to the oracle workers as a job of the replay queue; status, progress, report and cancel
 * are read from and written to Redis, so any gateway answers for any replay.
 */
@Injectable()
export class ConfigReplayService implements OnApplicationShutdown {
  private readonly queue: ConfigReplayQueue;
  private readonly log: JsonLogger;

  constructor(
    @Inject(REDIS) redis: RedisClient,
    @Inject(STORE_KEYS) keys: StoreKeys,
    @Inject(ConfigApiService) private readonly config: ConfigApiService,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'config-replay' });
    this.queue = createConfigReplayQueue({ redis, keys, logger: this.log });
  }

  /**
   * Validates the candidate (413 over the size limit; 400 `E_INVALID_FRAME` with every issue's
   * line and column, as `POST /v1/operator/config` answers) and submits the replay.
   */
  async submit(operator: OperatorIdentity, request: ConfigReplayRequest, now: number): Promise<ConfigReplayStatus> {
    const checked = this.config.validate(request.source);
    if (!checked.valid) {
      throw new OperatorApiError(
        makeError('E_INVALID_FRAME', `the candidate configuration has ${checked.issues.length} problem(s)`, { issue_count: checked.issues.length, issues: checked.issues }),
      );
    }
    const sinceMs = Date.parse(request.since);
    const untilMs = request.until === undefined ? now : Date.parse(request.until);
    if (sinceMs >= untilMs) throw new OperatorApiError(makeError('E_INVALID_FRAME', 'since must be before until (or before now)', { since: request.since, until: new Date(untilMs).toISOString() }));
    const unfinished = await this.queue.unfinished();
    if (unfinished >= MAX_UNFINISHED_REPLAYS) {
      throw new OperatorApiError(
        makeError('E_RATE_LIMITED', `${unfinished} replays are waiting or running; wait for one to finish or cancel one`, { unfinished, max: MAX_UNFINISHED_REPLAYS }, { retryAfterMs: 5_000 }),
      );
    }
    const replayId = randomUUID();
    const status = await this.queue.submit({
      replay_id: replayId,
      source: request.source,
      since_ms: sinceMs,
      until_ms: untilMs,
      ...(request.agent === undefined ? {} : { agent: request.agent }),
      ...(request.trigger === undefined ? {} : { trigger: request.trigger }),
      limit: request.limit ?? DEFAULT_REPLAY_LIMIT,
      requested_by: operator.id,
      requested_at: new Date(now).toISOString(),
    });
    this.log.info({ operator: operator.id, jobId: replayId, since: request.since, until: request.until, agentId: request.agent, trigger: request.trigger }, 'configuration replay submitted');
    return status;
  }

  /** The replay's status, or 404. */
  async status(replayId: string): Promise<ConfigReplayStatus> {
    const status = await this.queue.status(replayId);
    if (status === null) throw notFound(replayId);
    return status;
  }

  /** Asks the replay to stop; its status after asking, or 404. */
  async cancel(operator: OperatorIdentity, replayId: string): Promise<ConfigReplayStatus> {
    const status = await this.queue.cancel(replayId);
    if (status === null) throw notFound(replayId);
    this.log.info({ operator: operator.id, jobId: replayId, state: status.state }, 'configuration replay cancel asked');
    return status;
  }

  async onApplicationShutdown(): Promise<void> {
    try {
      await this.queue.close();
    } catch (error) {
      this.log.warn({ error }, 'closing the replay queue failed');
    }
  }
}

function notFound(replayId: string): OperatorApiError {
  return new OperatorApiError(makeError('E_NOT_FOUND', `no replay ${replayId} (replays are kept 24 h after they end)`, { replay_id: replayId }));
}
