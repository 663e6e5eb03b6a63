import { Body, Controller, HttpCode, Inject, Param, Post, UseGuards, UseInterceptors } from '@nestjs/common';
import { IdSchema, OperatorSignalBodySchema, type OperatorIdentity, type OperatorSignalResponse } from '@ahp/protocol';
import { OPERATOR_SIGNAL_AUDIT } from '../audit/audit-specs.js';
import { AuditInterceptor } from '../audit/audit.interceptor.js';
import { Audited } from '../audit/audited.decorator.js';
import { parseInput } from '../operator-api/api-error.js';
import { CurrentOperator, OperatorAuthGuard, RequireRole } from '../operator-api/operator-auth.guard.js';
import { OperatorSignalsService } from './operator-signals.service.js';

/** `POST /v1/operator/agents/:agentId/signals`: an operator pushes a prompt or aid signal to an agent. */
@Controller('v1/operator/agents')
@UseGuards(OperatorAuthGuard)
export class OperatorSignalsController {
  constructor(@Inject(OperatorSignalsService) private readonly signals: OperatorSignalsService) {}

  /** 201 with the signal sent; 400 for a block/control (or any invalid) body; 404 for an agent unknown or outside the token's teams. */
  @Post(':agentId/signals')
  @HttpCode(201)
  @RequireRole('approver')
  @Audited(OPERATOR_SIGNAL_AUDIT)
  @UseInterceptors(AuditInterceptor)
  send(@CurrentOperator() operator: OperatorIdentity, @Param('agentId') agentId: string, @Body() body: unknown): Promise<OperatorSignalResponse> {
    const id = parseInput(IdSchema, agentId, 'agent id');
    return this.signals.send(operator, id, parseInput(OperatorSignalBodySchema, body, 'signal'));
  }
}
