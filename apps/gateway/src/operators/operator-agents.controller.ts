import { Controller, Get, Inject, Param, Query, UseGuards } from '@nestjs/common';
import {
  IdSchema,
  TimelineQuerySchema,
  makeError,
  type AgentListResponse,
  type OperatorIdentity,
  type OperatorMeResponse,
  type TimelineResponse,
} from '@ahp/protocol';
import { PresenceService } from '../presence/presence.service.js';
import { TimelineService } from '../timeline/timeline.service.js';
import { OperatorApiError, parseInput } from '../operator-api/api-error.js';
import { CurrentOperator, OperatorAuthGuard } from '../operator-api/operator-auth.guard.js';
import { OperatorScopeService } from '../operator-api/operator-scope.service.js';

/** Who the caller is, which agents are connected where, and what an agent reported (its timeline). */
@Controller('v1/operator')
@UseGuards(OperatorAuthGuard)
export class OperatorAgentsController {
  constructor(
    @Inject(PresenceService) private readonly presence: PresenceService,
    @Inject(TimelineService) private readonly timeline: TimelineService,
    @Inject(OperatorScopeService) private readonly scopes: OperatorScopeService,
  ) {}

  @Get('me')
  me(@CurrentOperator() operator: OperatorIdentity): OperatorMeResponse {
    return { operator };
  }

  /** Connected agents, only those of the token's teams for a scoped token; gateways are infrastructure and always listed. */
  @Get('agents')
  async agents(@CurrentOperator() operator: OperatorIdentity): Promise<AgentListResponse> {
    const view = await this.presence.view();
    return { ...view, agents: view.agents.filter((entry) => this.scopes.seesAgent(operator, entry.agent.id)) };
  }

  /** 404 for an agent outside the token's teams (for a scoped token, also for an unknown agent: the two look alike). */
  @Get('agents/:agentId/timeline')
  async agentTimeline(@CurrentOperator() operator: OperatorIdentity, @Param('agentId') agentId: string, @Query() query: unknown): Promise<TimelineResponse> {
    const id = parseInput(IdSchema, agentId, 'agent id');
    const { limit } = parseInput(TimelineQuerySchema, { ...(query as object) }, 'query');
    if (!this.scopes.seesAgent(operator, id)) throw new OperatorApiError(makeError('E_NOT_FOUND', `no agent ${id}`, { agent: id }));
    return { events: await this.timeline.read(id, limit) };
  }
}
