import { Inject, Injectable } from '@nestjs/common';
import {
  makeError,
  type DropShadowResponse,
  type OperatorIdentity,
  type PromoteShadowResponse,
  type SetShadowResponse,
  type ShadowStatusResponse,
} from '@ahp/protocol';
import type { RedisConfigStore, ShadowConfigStore } from '@ahp/store';
import { ConfigApiService, configSourceFor } from '../config-api/config-api.service.js';
import { LOGGER } from '../config/config.tokens.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { OperatorApiError } from '../operator-api/api-error.js';
import { OperatorScopeService } from '../operator-api/operator-scope.service.js';
import { CONFIG_STORE } from '../store/store.tokens.js';
import { SHADOW_CONFIG_STORE } from './shadow-api.tokens.js';

function noShadow(): OperatorApiError {
  return new OperatorApiError(makeError('E_NOT_FOUND', 'no shadow hooks configuration is set'));
}

function otherShadow(expected: number, current: number): OperatorApiError {
  return new OperatorApiError(
    makeError('E_CONFLICT', `shadow ${expected} is no longer the shadow configuration (shadow ${current} is); look at it before acting`, { expected, current }),
  );
}

/**
 * The shadow hooks configuration for operators (docs/operator-api.md): set one (validated exactly
 * as a publish), read it with its disagreement counters, promote it to live, or drop it.
 */
@Injectable()
export class ShadowApiService {
  private readonly log: JsonLogger;

  constructor(
    @Inject(SHADOW_CONFIG_STORE) private readonly shadows: ShadowConfigStore,
    @Inject(CONFIG_STORE) private readonly live: RedisConfigStore,
    @Inject(ConfigApiService) private readonly config: ConfigApiService,
    @Inject(OperatorScopeService) private readonly scopes: OperatorScopeService,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'config-shadow' });
  }

  async set(operator: OperatorIdentity, source: string, now: number): Promise<SetShadowResponse> {
    const checked = this.config.validateForPublish(operator, source);
    const liveVersion = await this.live.currentVersion();
    const result = await this.shadows.set({ source, config: checked.config, publishedBy: operator.id, now, liveVersion });
    this.log.info({ operator: operator.id, shadow: result.shadow, unchanged: result.unchanged, liveVersion }, 'shadow hooks configuration set');
    return { ...result, warnings: checked.warnings };
  }

  /**
   * The shadow as `operator` may read it: its text with credentials masked as for a live version,
   * and only the disagreement examples of agents it sees (a team-scoped token sees its teams').
   * The counters are totals over the fleet and name no agent; they are left whole.
   */
  async status(operator: OperatorIdentity): Promise<ShadowStatusResponse> {
    const stored = await this.shadows.current();
    if (stored === null) throw noShadow();
    const stats = await this.shadows.stats(stored.shadow);
    return {
      shadow: stored.shadow,
      digest: stored.digest,
      published_at: stored.published_at,
      published_by: stored.published_by,
      live_version: stored.live_version,
      source: configSourceFor(operator, stored.source),
      ...stats,
      examples: stats.examples.filter((example) => this.scopes.seesAgent(operator, example.agent_id)),
    };
  }

  async promote(operator: OperatorIdentity, expected: number | undefined, now: number): Promise<PromoteShadowResponse> {
    const outcome = await this.shadows.promote({ ...(expected === undefined ? {} : { expected }), publishedBy: operator.id, now });
    if (outcome.outcome === 'none') throw noShadow();
    if (outcome.outcome === 'conflict') throw otherShadow(expected ?? 0, outcome.current);
    this.log.info({ operator: operator.id, shadow: outcome.shadow, configVersion: outcome.version, unchanged: outcome.unchanged }, 'shadow hooks configuration promoted');
    return { shadow: outcome.shadow, version: outcome.version, unchanged: outcome.unchanged };
  }

  async drop(operator: OperatorIdentity, expected: number | undefined): Promise<DropShadowResponse> {
    const outcome = await this.shadows.drop(expected);
    if (outcome.outcome === 'none') throw noShadow();
    if (outcome.outcome === 'conflict') throw otherShadow(expected ?? 0, outcome.current);
    this.log.info({ operator: operator.id, shadow: outcome.shadow }, 'shadow hooks configuration dropped');
    return { shadow: outcome.shadow, dropped: true };
  }
}
