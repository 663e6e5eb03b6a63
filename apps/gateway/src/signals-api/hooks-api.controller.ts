import { Controller, Get, Inject, Param, UseGuards } from '@nestjs/common';
import { UuidSchema, type HookDrillDownResponse, type OperatorIdentity } from '@ahp/protocol';
import { parseInput } from '../operator-api/api-error.js';
import { CurrentOperator, OperatorAuthGuard } from '../operator-api/operator-auth.guard.js';
import { SignalsApiService } from './signals-api.service.js';

/**
 * `GET /v1/operator/hooks/:hookId` (viewer and up): the drill-down of a hook that sent signals —
 * its context (redacted), every oracle's verdict, the signals with their rules, the configuration
 * version, the stage latencies and the agent's answers. Reached from a signal row's `correlation_id`.
 * For a recent hook without signals, the partial drill-down (`partial` says what it lacks) from its
 * hook record and its replay-log entry; reached from an agent's last decision. For a hook the
 * gateway's failure policy decided (deadline passed, job not queued), its own shape
 * (`PolicyHookDrillDown`, `partial.reason: 'failure_policy'`): the policy, the error, its times and
 * what a worker reported doing with the hook afterwards.
 */
@Controller('v1/operator/hooks')
@UseGuards(OperatorAuthGuard)
export class HooksApiController {
  constructor(@Inject(SignalsApiService) private readonly signals: SignalsApiService) {}

  @Get(':hookId')
  drillDown(@CurrentOperator() operator: OperatorIdentity, @Param('hookId') hookId: string): Promise<HookDrillDownResponse> {
    return this.signals.drillDown(operator, parseInput(UuidSchema, hookId, 'hook id'));
  }
}
