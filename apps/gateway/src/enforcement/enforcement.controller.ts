import { Body, Controller, Get, HttpCode, Inject, Param, Post, UseGuards, UseInterceptors } from '@nestjs/common';
import { EnforcementResetBodySchema, IdSchema, type EnforcementResetResponse, type EnforcementStateResponse, type OperatorIdentity } from '@ahp/protocol';
import { ENFORCEMENT_RESET_AUDIT } from '../audit/audit-specs.js';
import { AuditInterceptor } from '../audit/audit.interceptor.js';
import { Audited } from '../audit/audited.decorator.js';
import { parseInput } from '../operator-api/api-error.js';
import { CurrentOperator, OperatorAuthGuard, RequireRole } from '../operator-api/operator-auth.guard.js';
import { EnforcementService } from './enforcement.service.js';

/** `GET /v1/operator/agents/:agentId/enforcement` and `POST …/enforcement/reset` (docs/operator-api.md). */
@Controller('v1/operator/agents')
@UseGuards(OperatorAuthGuard)
export class EnforcementController {
  constructor(@Inject(EnforcementService) private readonly enforcement: EnforcementService) {}

  /** Any role: the agent's breaker counts, unanswered block/control signals and escalation counters. */
  @Get(':agentId/enforcement')
  state(@CurrentOperator() operator: OperatorIdentity, @Param('agentId') agentId: string): Promise<EnforcementStateResponse> {
    return this.enforcement.state(operator, parseInput(IdSchema, agentId, 'agent id'));
  }

  /**
   * Approvers and admins: the people who decide the intervention requests a tripped breaker
   * sends are the ones who must be able to let the agent go on. 200 with the values before; 400
   * for a body that names no part, an unknown one or one twice; 404 for an agent unknown or
   * outside the token's teams.
   */
  @Post(':agentId/enforcement/reset')
  @HttpCode(200)
  @RequireRole('approver')
  @Audited(ENFORCEMENT_RESET_AUDIT)
  @UseInterceptors(AuditInterceptor)
  reset(@CurrentOperator() operator: OperatorIdentity, @Param('agentId') agentId: string, @Body() body: unknown): Promise<EnforcementResetResponse> {
    const id = parseInput(IdSchema, agentId, 'agent id');
    return this.enforcement.reset(operator, id, parseInput(EnforcementResetBodySchema, body ?? {}, 'enforcement reset'));
  }
}
