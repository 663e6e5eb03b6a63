import { Controller, Get, Inject, Param, Query, UseGuards } from '@nestjs/common';
import {
  IdSchema,
  TimelineQuerySchema,
  type AgentListResponse,
  type OperatorIdentity,
  type OperatorMeResponse,
  type TimelineResponse,
} from '@ahp/protocol';
import { PresenceService } from '../presence/presence.service.js';
import { TimelineService } from '../timeline/timeline.service.js';
import { parseInput } from './api-error.js';
import { CurrentOperator, OperatorAuthGuard } from './operator-auth.guard.js';

/** Who the caller is, which agents are connected where, and what an agent reported (its timeline). */
@Controller('v1/operator')
@UseGuards(OperatorAuthGuard)
export class OperatorAgentsController {
  constructor(
    @Inject(PresenceService) private readonly presence: PresenceService,
    @Inject(TimelineService) private readonly timeline: TimelineService,
  ) {}

  @Get('me')
  me(@CurrentOperator() operator: OperatorIdentity): OperatorMeResponse {
    return { operator };
  }

  @Get('agents')
  agents(): Promise<AgentListResponse> {
    return this.presence.view();
  }

  @Get('agents/:agentId/timeline')
  async agentTimeline(@Param('agentId') agentId: string, @Query() query: unknown): Promise<TimelineResponse> {
    const id = parseInput(IdSchema, agentId, 'agent id');
    const { limit } = parseInput(TimelineQuerySchema, { ...(query as object) }, 'query');
    return { events: await this.timeline.read(id, limit) };
  }
}
