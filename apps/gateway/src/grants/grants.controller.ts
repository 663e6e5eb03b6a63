import { Controller, Delete, Get, HttpCode, Inject, Param, Query, UseGuards, UseInterceptors } from '@nestjs/common';
import { GrantListQuerySchema, ToolGrantIdSchema, type GrantListResponse, type GrantRevokeResponse, type JsonObject, type OperatorIdentity } from '@ahp/protocol';
import { AuditInterceptor } from '../audit/audit.interceptor.js';
import { Audited, type AuditSpec } from '../audit/audited.decorator.js';
import { parseInput } from '../operator-api/api-error.js';
import { CurrentOperator, OperatorAuthGuard, RequireRole } from '../operator-api/operator-auth.guard.js';
import { GrantsService } from './grants.service.js';

/** `DELETE /v1/operator/grants/:grantId` in the audit trail: the grant, and whether this call revoked it. */
const GRANT_REVOKE_AUDIT: AuditSpec<GrantRevokeResponse> = {
  action: 'grant.revoke',
  target: (request) => request.params['grantId'] ?? '',
  outcome: (result) => (result.outcome === 'revoked' ? 'applied' : 'unchanged'),
  details: (_request, result): JsonObject =>
    result === undefined ? {} : { agent: result.grant.agent, session: result.grant.session_id, tool: result.grant.tool, scope: result.grant.scope },
};

/**
 * Session grants for operators: list them (any role), revoke one (approver or admin). Thin: parse
 * with the protocol's schemas, call {@link GrantsService}.
 */
@Controller('v1/operator/grants')
@UseGuards(OperatorAuthGuard)
export class GrantsController {
  constructor(@Inject(GrantsService) private readonly grants: GrantsService) {}

  @Get()
  async list(@CurrentOperator() operator: OperatorIdentity, @Query() query: unknown): Promise<GrantListResponse> {
    return { grants: await this.grants.list(operator, parseInput(GrantListQuerySchema, { ...(query as object) }, 'query')) };
  }

  /** 200 with the revoked grant; `already_revoked` (naming who) when it was revoked before; 404 when it does not exist. */
  @Delete(':grantId')
  @HttpCode(200)
  @RequireRole('approver')
  @Audited(GRANT_REVOKE_AUDIT)
  @UseInterceptors(AuditInterceptor)
  revoke(@CurrentOperator() operator: OperatorIdentity, @Param('grantId') grantId: string): Promise<GrantRevokeResponse> {
    return this.grants.revoke(operator, parseInput(ToolGrantIdSchema, grantId, 'grant id'));
  }
}
