import { Body, Controller, HttpCode, Inject, Post, UseGuards, UseInterceptors } from '@nestjs/common';
import { DecisionLinkBodySchema, type DecisionLinkInspectResponse, type OperatorIdentity, type RequestDecisionResponse } from '@ahp/protocol';
import { LINK_DECISION_AUDIT } from '../audit/audit-specs.js';
import { AuditInterceptor } from '../audit/audit.interceptor.js';
import { Audited } from '../audit/audited.decorator.js';
import { OperatorApiError, parseInput } from '../operator-api/api-error.js';
import { CurrentOperator, OperatorAuthGuard, RequireRole } from '../operator-api/operator-auth.guard.js';
import { DecisionLinksService } from './decision-links.service.js';

/**
 * `/v1/operator/links`: the decision links of notifications, used from the console's `/decide`
 * page with the operator's session. Tokens travel in the body, never in a path or query (which
 * access logs keep). Refusals are `E_FORBIDDEN` with `details.link` (`invalid`, `expired`,
 * `used`, `not_yours`); a settled request is `E_CONFLICT` naming who decided it.
 */
@Controller('v1/operator/links')
@UseGuards(OperatorAuthGuard)
export class DecisionLinksController {
  constructor(@Inject(DecisionLinksService) private readonly links: DecisionLinksService) {}

  @Post('inspect')
  @HttpCode(200)
  async inspect(@CurrentOperator() operator: OperatorIdentity, @Body() body: unknown): Promise<DecisionLinkInspectResponse> {
    const { token } = parseInput(DecisionLinkBodySchema, body, 'link');
    const result = await this.links.inspect(operator, token);
    if (!result.ok) throw new OperatorApiError(result.error);
    return result.value;
  }

  @Post('redeem')
  @HttpCode(200)
  @RequireRole('approver')
  @Audited(LINK_DECISION_AUDIT)
  @UseInterceptors(AuditInterceptor)
  async redeem(@CurrentOperator() operator: OperatorIdentity, @Body() body: unknown): Promise<RequestDecisionResponse> {
    const { token } = parseInput(DecisionLinkBodySchema, body, 'link');
    const result = await this.links.redeem(operator, token);
    if (!result.ok) throw new OperatorApiError(result.error);
    return result.value;
  }
}
