import { Inject, Injectable } from '@nestjs/common';
import { isPolicyDrillDown, makeError, type HookDrillDownResponse, type OperatorIdentity, type SignalLogFilter, type SignalLogStats, type SignalLogStatsQuery } from '@ahp/protocol';
import { StoreInputError, exportSignalLog, readSignalLogStats, type HookDetailStore, type RedisClient, type SignalLogExport, type StoreKeys } from '@ahp/store';
import { OperatorApiError } from '../operator-api/api-error.js';
import { OperatorScopeService } from '../operator-api/operator-scope.service.js';
import { HOOK_DETAIL_STORE, REDIS, STORE_KEYS } from '../store/store.tokens.js';

/** The API's query names (`agent`, `session`) mapped onto the store's filter fields. */
function filterOf(query: SignalLogStatsQuery): SignalLogFilter {
  const { agent, session, ...rest } = query;
  return { ...rest, ...(agent === undefined ? {} : { agent_id: agent }), ...(session === undefined ? {} : { session_id: session }) };
}

/**
 * The signal log for operators: signals joined with their responses, and statistics, read
 * through the store's export (the same functions `ahp log export|stats` uses).
 */
@Injectable()
export class SignalsApiService {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(STORE_KEYS) private readonly keys: StoreKeys,
    @Inject(OperatorScopeService) private readonly scopes: OperatorScopeService,
    @Inject(HOOK_DETAIL_STORE) private readonly details: HookDetailStore,
  ) {}

  /** The oldest `limit` signals matching `query` that `operator` may see, each with its response when there is one. */
  export(operator: OperatorIdentity, query: SignalLogStatsQuery, limit: number): Promise<SignalLogExport> {
    return this.guarded(() => exportSignalLog(this.redis, this.keys, { filter: filterOf(query), limit, ...this.scopeOf(operator) }));
  }

  /** Counts per hook, oracle, intensity, action, rule and configuration version over every matching signal `operator` may see. */
  stats(operator: OperatorIdentity, query: SignalLogStatsQuery): Promise<SignalLogStats> {
    return this.guarded(() => readSignalLogStats(this.redis, this.keys, { filter: filterOf(query), ...this.scopeOf(operator) }));
  }

  /**
   * The drill-down of one hook (docs/console.md "Hook drill-down"): the full one of a hook that
   * sent signals, or the partial one (`partial` set) of a hook without, or that of a hook the
   * failure policy decided (`partial.reason: 'failure_policy'`), while its hook record lives. Not
   * found — not decided yet, expired, never recorded (Redis was unreachable), or an agent a
   * team-scoped token may not see (the same answer, so a scoped token cannot probe hook ids) — is
   * E_NOT_FOUND.
   */
  async drillDown(operator: OperatorIdentity, hookId: string): Promise<HookDrillDownResponse> {
    const drill = await this.details.read(hookId);
    const agentId = drill === null ? undefined : isPolicyDrillDown(drill) ? drill.policy.agent_id : drill.detail.agent_id;
    if (drill === null || agentId === undefined || (operator.scope?.teams !== undefined && !this.scopes.seesAgent(operator, agentId))) {
      throw new OperatorApiError(makeError('E_NOT_FOUND', `no drill-down for hook ${hookId}: not decided (yet), or older than its hook record (15 min) without signals or its signal records (24 h) with`, { hook_id: hookId }));
    }
    return drill;
  }

  /** A team-scoped token reads only its teams' agents' signals (a filter naming another agent finds none). */
  private scopeOf(operator: OperatorIdentity): { agentAllowed?: (agentId: string) => boolean } {
    return operator.scope?.teams === undefined ? {} : { agentAllowed: (agentId) => this.scopes.seesAgent(operator, agentId) };
  }

  /** The query schema already checked the filter; a store refusal left over (e.g. a date it cannot place) is still the caller's input. */
  private async guarded<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof StoreInputError) throw new OperatorApiError(makeError('E_INVALID_FRAME', error.message));
      throw error;
    }
  }
}
