import { Body, Controller, Delete, Get, HttpCode, Inject, Post, Query, UseGuards, UseInterceptors } from '@nestjs/common';
import {
  PublishConfigBodySchema,
  ShadowActionBodySchema,
  type DropShadowResponse,
  type OperatorIdentity,
  type PromoteShadowResponse,
  type SetShadowResponse,
  type ShadowStatusResponse,
} from '@ahp/protocol';
import { AuditInterceptor } from '../audit/audit.interceptor.js';
import { Audited } from '../audit/audited.decorator.js';
import { parseInput } from '../operator-api/api-error.js';
import { CurrentOperator, OperatorAuthGuard, RequireFleetWide, RequireRole } from '../operator-api/operator-auth.guard.js';
import { CONFIG_SHADOW_AUDIT, CONFIG_SHADOW_DROP_AUDIT, CONFIG_SHADOW_PROMOTE_AUDIT } from './shadow-audit.js';
import { ShadowApiService } from './shadow-api.service.js';

/**
 * `/v1/operator/config/shadow`: any operator reads the shadow and its disagreements; only
 * fleet-wide admins set, promote or drop it (it governs every team once live), each audited.
 * Registered before the config controller, whose `GET :version` would otherwise take "shadow".
 */
@Controller('v1/operator/config/shadow')
@UseGuards(OperatorAuthGuard)
export class ShadowApiController {
  constructor(@Inject(ShadowApiService) private readonly shadow: ShadowApiService) {}

  @Get()
  status(@CurrentOperator() operator: OperatorIdentity): Promise<ShadowStatusResponse> {
    return this.shadow.status(operator);
  }

  /** 201 with the shadow number; `unchanged: true` when the text is the current shadow's. */
  @Post()
  @HttpCode(201)
  @RequireRole('admin')
  @RequireFleetWide()
  @Audited(CONFIG_SHADOW_AUDIT)
  @UseInterceptors(AuditInterceptor)
  set(@CurrentOperator() operator: OperatorIdentity, @Body() body: unknown): Promise<SetShadowResponse> {
    const { source } = parseInput(PublishConfigBodySchema, body, 'config');
    return this.shadow.set(operator, source, Date.now());
  }

  /** Body `{ shadow? }`: the shadow the admin looked at (409 when another one replaced it). */
  @Post('promote')
  @HttpCode(200)
  @RequireRole('admin')
  @RequireFleetWide()
  @Audited(CONFIG_SHADOW_PROMOTE_AUDIT)
  @UseInterceptors(AuditInterceptor)
  promote(@CurrentOperator() operator: OperatorIdentity, @Body() body: unknown): Promise<PromoteShadowResponse> {
    const { shadow } = parseInput(ShadowActionBodySchema, body ?? {}, 'body');
    return this.shadow.promote(operator, shadow, Date.now());
  }

  /** `?shadow=N`: as promote's body (a DELETE carries no body through the console's proxy). */
  @Delete()
  @HttpCode(200)
  @RequireRole('admin')
  @RequireFleetWide()
  @Audited(CONFIG_SHADOW_DROP_AUDIT)
  @UseInterceptors(AuditInterceptor)
  drop(@CurrentOperator() operator: OperatorIdentity, @Query('shadow') shadow: unknown): Promise<DropShadowResponse> {
    const expected = shadow === undefined ? {} : parseInput(ShadowActionBodySchema, { shadow: typeof shadow === 'string' && /^[0-9]{1,15}$/.test(shadow) ? Number(shadow) : shadow }, 'query');
    return this.shadow.drop(operator, expected.shadow);
  }
}
