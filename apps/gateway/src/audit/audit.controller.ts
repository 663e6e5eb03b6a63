import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { AuditQuerySchema, type AuditListResponse } from '@ahp/protocol';
import { parseInput } from '../operator-api/api-error.js';
import { OperatorAuthGuard, RequireFleetWide, RequireRole } from '../operator-api/operator-auth.guard.js';
import { AuditService } from './audit.service.js';

/** `GET /v1/operator/audit`: the audit trail, newest first, for fleet-wide admins. */
@Controller('v1/operator/audit')
@UseGuards(OperatorAuthGuard)
export class AuditController {
  constructor(@Inject(AuditService) private readonly audit: AuditService) {}

  @Get()
  @RequireRole('admin')
  // Entries name operators and targets of every team; the trail is read whole or not at all.
  @RequireFleetWide()
  async list(@Query() query: unknown): Promise<AuditListResponse> {
    const filter = parseInput(AuditQuerySchema, { ...(query as object) }, 'query');
    return this.audit.read({
      limit: filter.limit,
      ...(filter.since === undefined ? {} : { since: Date.parse(filter.since) }),
      ...(filter.until === undefined ? {} : { until: Date.parse(filter.until) }),
      ...(filter.operator === undefined ? {} : { operator: filter.operator }),
      ...(filter.action === undefined ? {} : { action: filter.action }),
    });
  }
}
