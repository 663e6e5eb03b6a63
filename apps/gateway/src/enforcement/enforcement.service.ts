import { Inject, Injectable } from '@nestjs/common';
import { makeError, type EnforcementResetBody, type EnforcementResetResponse, type EnforcementStateResponse, type OperatorIdentity } from '@ahp/protocol';
import type { EnforcementStore } from '@ahp/store';
import { AgentAuthService } from '../auth/agent-auth.service.js';
import { LOGGER } from '../config/config.tokens.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { OperatorApiError } from '../operator-api/api-error.js';
import { OperatorScopeService } from '../operator-api/operator-scope.service.js';
import { ENFORCEMENT_STORE } from './enforcement.tokens.js';

/**
 * An agent's enforcement state for operators (docs/hooks.md, "Lifting an agent's enforcement
 * state"): reading it, and lifting the parts an operator names. The state lives in Redis per agent
 * and a new session does not reset it, so this is the one way out of a tripped breaker or a hold
 * short of waiting for its TTL.
 *
 * The agent's sessions are told nothing: the protocol has no frame for it (a `signal` would be an
 * operator signal, which the agent must answer). Its next hook is simply admitted, and its counts
 * start from zero.
 */
@Injectable()
export class EnforcementService {
  private readonly log: JsonLogger;

  constructor(
    @Inject(ENFORCEMENT_STORE) private readonly store: EnforcementStore,
    @Inject(AgentAuthService) private readonly auth: AgentAuthService,
    @Inject(OperatorScopeService) private readonly scopes: OperatorScopeService,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'enforcement' });
  }

  /** 404 for an agent this gateway does not know and, for a scoped token, one outside its teams (the two look alike). */
  private checkAgent(operator: OperatorIdentity, agentId: string): void {
    if (this.auth.identityOf(agentId) === undefined || !this.scopes.seesAgent(operator, agentId)) {
      throw new OperatorApiError(makeError('E_NOT_FOUND', `no agent ${agentId}`, { agent: agentId }));
    }
  }

  async state(operator: OperatorIdentity, agentId: string): Promise<EnforcementStateResponse> {
    this.checkAgent(operator, agentId);
    return { agent_id: agentId, state: await this.store.read(agentId) };
  }

  async reset(operator: OperatorIdentity, agentId: string, body: EnforcementResetBody, now: number = Date.now()): Promise<EnforcementResetResponse> {
    this.checkAgent(operator, agentId);
    const result = await this.store.reset(agentId, body.parts ?? []);
    this.log.info({ operator: operator.id, agentId, parts: result.parts, changed: result.changed }, 'enforcement state reset');
    return { agent_id: agentId, parts: result.parts, before: result.before, changed: result.changed, reset_at: new Date(now).toISOString() };
  }
}
