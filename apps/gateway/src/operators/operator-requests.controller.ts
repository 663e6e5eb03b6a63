import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards, UseInterceptors } from '@nestjs/common';
import {
  ListRequestsQuerySchema,
  RequestDecisionBodySchema,
  RequestIdSchema,
  makeError,
  type OperatorIdentity,
  type RequestDecisionResponse,
  type RequestDetailResponse,
  type RequestListResponse,
} from '@ahp/protocol';
import { REQUEST_DECISION_AUDIT } from '../audit/audit-specs.js';
import { AuditInterceptor } from '../audit/audit.interceptor.js';
import { Audited } from '../audit/audited.decorator.js';
import { GrantsService } from '../grants/grants.service.js';
import { RequestsService } from '../requests/requests.service.js';
import { OperatorApiError, parseInput } from '../operator-api/api-error.js';
import { CurrentOperator, OperatorAuthGuard, RequireRole } from '../operator-api/operator-auth.guard.js';
import { OperatorScopeService } from '../operator-api/operator-scope.service.js';

/**
 * Requests for operators: list and filter them, read one with its history, decide one. Thin:
 * each route parses its input with the protocol's schema, calls {@link RequestsService}, and maps
 * the result (errors become `{ error }` bodies through `OperatorErrorFilter`).
 */
@Controller('v1/operator/requests')
@UseGuards(OperatorAuthGuard)
export class OperatorRequestsController {
  constructor(
    @Inject(RequestsService) private readonly requests: RequestsService,
    @Inject(GrantsService) private readonly grants: GrantsService,
    @Inject(OperatorScopeService) private readonly scopes: OperatorScopeService,
  ) {}

  @Get()
  async list(@CurrentOperator() operator: OperatorIdentity, @Query() query: unknown): Promise<RequestListResponse> {
    const filter = parseInput(ListRequestsQuerySchema, { ...(query as object) }, 'query');
    this.scopes.checkTeamFilter(operator, filter.team);
    return { requests: await this.requests.list(filter, operator) };
  }

  /** 404 alike for a request that does not exist and for one outside the token's teams. */
  @Get(':requestId')
  async get(@CurrentOperator() operator: OperatorIdentity, @Param('requestId') requestId: string): Promise<RequestDetailResponse> {
    const id = parseInput(RequestIdSchema, requestId, 'request id');
    const found = await this.requests.get(id, operator);
    if (found === null) throw new OperatorApiError(makeError('E_NOT_FOUND', `no request ${id}`, { request_id: id }));
    return { request: found.state, history: found.history };
  }

  /** 200 when decided (or decided the same way before); 409 naming the winner when someone decided otherwise. */
  @Post(':requestId/decision')
  @HttpCode(200)
  @RequireRole('approver')
  @Audited(REQUEST_DECISION_AUDIT)
  @UseInterceptors(AuditInterceptor)
  async decide(@CurrentOperator() operator: OperatorIdentity, @Param('requestId') requestId: string, @Body() body: unknown): Promise<RequestDecisionResponse> {
    const id = parseInput(RequestIdSchema, requestId, 'request id');
    const decision = parseInput(RequestDecisionBodySchema, body, 'decision');
    // Outside the token's teams the request does not exist for this operator, before anything
    // else is said about it (checkScope below would name its type). decideAsOperator checks again
    // on the state it decides.
    if (operator.scope?.teams !== undefined && (await this.requests.get(id, operator)) === null) throw new OperatorApiError(makeError('E_NOT_FOUND', `no request ${id}`, { request_id: id }));
    // A session-wide approval (`scope`) is refused before anything is decided when the request cannot take it.
    await this.grants.checkScope(id, decision.scope);
    const result = await this.requests.decideAsOperator(operator, id, decision);
    if (!result.ok) throw new OperatorApiError(result.error);
    const grant = await this.grants.grantFor(operator, result.state, decision.scope);
    return {
      outcome: result.outcome,
      request: result.state,
      ...(grant === undefined ? {} : { grant }),
      ...(result.afterPromptFallback === undefined ? {} : { after_prompt_fallback: result.afterPromptFallback }),
    };
  }
}
