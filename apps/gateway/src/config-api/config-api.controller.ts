import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards, UseInterceptors } from '@nestjs/common';
import {
  ConfigHistoryQuerySchema,
  ConfigVersionNumberSchema,
  PublishConfigBodySchema,
  type ConfigHistoryResponse,
  type ConfigVersionDetail,
  type OperatorIdentity,
  type PublishConfigResponse,
  type ValidateConfigResponse,
} from '@ahp/protocol';
import { CONFIG_PUBLISH_AUDIT, CONFIG_VALIDATE_AUDIT } from '../audit/audit-specs.js';
import { AuditInterceptor } from '../audit/audit.interceptor.js';
import { Audited } from '../audit/audited.decorator.js';
import { parseInput } from '../operator-api/api-error.js';
import { CurrentOperator, OperatorAuthGuard, RequireFleetWide, RequireRole } from '../operator-api/operator-auth.guard.js';
import { ConfigApiService } from './config-api.service.js';

/**
 * Hooks configuration versions for operators: the current one, the history, one version, and
 * publishing (fleet-wide admins only). Thin: parse with the protocol's schemas, call {@link ConfigApiService}.
 */
@Controller('v1/operator/config')
@UseGuards(OperatorAuthGuard)
export class ConfigApiController {
  constructor(@Inject(ConfigApiService) private readonly config: ConfigApiService) {}

  /** Credentials (notification channel URLs) masked for all but fleet-wide admins. */
  @Get()
  current(@CurrentOperator() operator: OperatorIdentity): Promise<ConfigVersionDetail> {
    return this.config.current(operator);
  }

  // Declared before `:version` so that "history" is never read as a version number.
  @Get('history')
  async history(@Query() query: unknown): Promise<ConfigHistoryResponse> {
    const { limit } = parseInput(ConfigHistoryQuerySchema, { ...(query as object) }, 'query');
    return { versions: await this.config.history(limit) };
  }

  /**
   * Validates a text without publishing it: 200 `{ valid, issues, warnings }` (issues and lint
   * warnings located by line and column). Any operator may: it stores nothing but its audit entry
   * (size, digest, verdict; never the text).
   */
  @Post('validate')
  @HttpCode(200)
  @Audited(CONFIG_VALIDATE_AUDIT)
  @UseInterceptors(AuditInterceptor)
  validate(@Body() body: unknown): ValidateConfigResponse {
    const { source } = parseInput(PublishConfigBodySchema, body, 'config');
    return this.config.validate(source);
  }

  @Get(':version')
  get(@CurrentOperator() operator: OperatorIdentity, @Param('version') version: string): Promise<ConfigVersionDetail> {
    // The path segment is text; only plain digits name a version.
    const number = parseInput(ConfigVersionNumberSchema, /^[0-9]{1,15}$/.test(version) ? Number(version) : version, 'config version');
    return this.config.get(operator, number);
  }

  /** 201 with the version now current; `unchanged: true` when the text equals the current one. */
  @Post()
  @HttpCode(201)
  @RequireRole('admin')
  // hooks.yaml governs every team: a team-scoped admin may not change what other teams run under.
  @RequireFleetWide()
  @Audited(CONFIG_PUBLISH_AUDIT)
  @UseInterceptors(AuditInterceptor)
  publish(@CurrentOperator() operator: OperatorIdentity, @Body() body: unknown): Promise<PublishConfigResponse> {
    const { source, rollback_of } = parseInput(PublishConfigBodySchema, body, 'config');
    return this.config.publish(operator, source, Date.now(), rollback_of);
  }
}
