import { Inject, Injectable } from '@nestjs/common';
import {
  makeError,
  openedByRule,
  scopeCoversRequestType,
  type ApprovalScope,
  type GrantListQuery,
  type GrantRevokeResponse,
  type OperatorIdentity,
  type ProtocolState,
  type ToolGrant,
} from '@ahp/protocol';
import { createToolGrantStore, type RedisClient, type RequestStore, type StoreKeys, type ToolGrantStore } from '@ahp/store';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { OperatorApiError } from '../operator-api/api-error.js';
import { OperatorScopeService } from '../operator-api/operator-scope.service.js';
import { REDIS, REQUEST_STORE, STORE_KEYS } from '../store/store.tokens.js';

/**
 * Session grants for operators (docs/operator-api.md, "Session grants"): recording one when an
 * operator approves a tool approval with `scope: 'session'` or `'session_tool'`, listing them,
 * revoking them. The worker reads them before it asks for an approval; a revocation applies from
 * the agent's next hook. A grant lives the gateway's session TTL (`AHP_SESSION_TTL_MS`) after it
 * was granted and after each use.
 */
@Injectable()
export class GrantsService {
  private readonly grants: ToolGrantStore;
  private readonly log: JsonLogger;

  constructor(
    @Inject(REDIS) redis: RedisClient,
    @Inject(STORE_KEYS) keys: StoreKeys,
    @Inject(REQUEST_STORE) private readonly requests: RequestStore,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) logger: JsonLogger,
    @Inject(OperatorScopeService) private readonly scopes: OperatorScopeService,
  ) {
    this.grants = createToolGrantStore({ redis, keys });
    this.log = logger.child({ component: 'grants' });
  }

  /**
   * Refuses, before anything is decided, a scope the request cannot take: only a tool approval a
   * rule opened in a session (`openedByRule`) can be approved for the rest of that session — a
   * tool approval an agent opened itself, whatever its payload says, is approved once at most.
   * @throws OperatorApiError 400 `E_INVALID_FRAME`; 404 for an unknown request.
   */
  async checkScope(requestId: string, scope: ApprovalScope | undefined): Promise<void> {
    if (scope === undefined || scope === 'once') return;
    const found = await this.requests.get(requestId);
    if (found === null) throw new OperatorApiError(makeError('E_NOT_FOUND', `no request ${requestId}`, { request_id: requestId }));
    const { state } = found;
    if (state.type !== 'tool_approval' || state.payload.session_id === undefined || !openedByRule(state)) {
      throw new OperatorApiError(
        makeError('E_INVALID_FRAME', `scope "${scope}" is only for tool approvals a rule asked for in a session; approve request ${requestId} once`, {
          request_id: requestId,
          type: state.type,
        }),
      );
    }
  }

  /** Records the grant of an approval decided with a scope wider than `once`; the same request again returns its grant. */
  async grantFor(operator: OperatorIdentity, state: ProtocolState, scope: ApprovalScope | undefined, now: number = Date.now()): Promise<ToolGrant | undefined> {
    if (scope === undefined || scope === 'once' || state.status !== 'approved') return undefined;
    const { created, grant } = await this.grants.grant({ state, scope, grantedBy: operator.id, ttlMs: this.config.sessionTtlMs, now });
    if (created) {
      this.log.info(
        { grantId: grant.grant_id, requestId: state.request_id, operatorId: operator.id, agentId: grant.agent, sessionId: grant.session_id, tool: grant.tool, scope },
        'session grant recorded',
      );
    }
    return grant;
  }

  /** Grants matching `query` that `operator` may see (a grant belongs to its agent's team). */
  async list(operator: OperatorIdentity, query: GrantListQuery, now: number = Date.now()): Promise<ToolGrant[]> {
    const grants = await this.grants.list({ ...(query.agent === undefined ? {} : { agent: query.agent }), ...(query.session === undefined ? {} : { session: query.session }) }, now);
    return grants.filter((grant) => this.scopes.seesAgent(operator, grant.agent));
  }

  /**
   * @throws OperatorApiError 404 for a grant that does not exist (never, or expired) or belongs to
   * an agent outside the token's teams (the two answer alike); 403 when the token's scope names
   * request types without `tool_approval` (grants are tool approvals widened to a session).
   */
  async revoke(operator: OperatorIdentity, grantId: string, now: number = Date.now()): Promise<GrantRevokeResponse> {
    const existing = await this.grants.get(grantId);
    if (existing === null || !this.scopes.seesAgent(operator, existing.agent)) {
      throw new OperatorApiError(makeError('E_NOT_FOUND', `no grant ${grantId}`, { grant_id: grantId }));
    }
    if (!scopeCoversRequestType(operator, 'tool_approval')) {
      throw new OperatorApiError(
        makeError('E_FORBIDDEN', 'grants come from tool approvals, which your token may not decide', { grant_id: grantId, request_type: 'tool_approval', scope: operator.scope ?? {} }),
      );
    }
    const result = await this.grants.revoke(grantId, operator.id, now);
    if (result === null) throw new OperatorApiError(makeError('E_NOT_FOUND', `no grant ${grantId}`, { grant_id: grantId }));
    if (result.outcome === 'revoked') {
      this.log.info({ grantId, operatorId: operator.id, agentId: result.grant.agent, sessionId: result.grant.session_id }, 'session grant revoked');
    }
    return result;
  }
}
