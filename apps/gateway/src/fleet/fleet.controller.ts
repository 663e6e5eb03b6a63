import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { countFleet, FleetQuerySchema, queryFleet, type FleetResponse, type OperatorHealthResponse, type OperatorIdentity } from '@ahp/protocol';
import { parseInput } from '../operator-api/api-error.js';
import { CurrentOperator, OperatorAuthGuard } from '../operator-api/operator-auth.guard.js';
import { OperatorScopeService } from '../operator-api/operator-scope.service.js';
import { FleetSnapshotService } from './fleet-snapshot.service.js';
import { GatewayHealthService } from './gateway-health.service.js';

/** `GET /v1/operator/fleet` and `GET /v1/operator/health` (any role; the health view is infrastructure, the same for every scope). */
@Controller('v1/operator')
@UseGuards(OperatorAuthGuard)
export class FleetController {
  constructor(
    @Inject(FleetSnapshotService) private readonly fleet: FleetSnapshotService,
    @Inject(GatewayHealthService) private readonly health: GatewayHealthService,
    @Inject(OperatorScopeService) private readonly scopes: OperatorScopeService,
  ) {}

  /**
   * A page of the fleet (search, filters, sort: {@link FleetQuerySchema}); `counts` over every
   * agent the token sees. A scoped token sees only its teams' agents, and `team` naming another
   * team is refused like everywhere else.
   */
  @Get('fleet')
  async list(@CurrentOperator() operator: OperatorIdentity, @Query() query: unknown): Promise<FleetResponse> {
    const parsed = parseInput(FleetQuerySchema, { ...(query as object) }, 'query');
    this.scopes.checkTeamFilter(operator, parsed.team);
    const { rows, gateways } = await this.fleet.read();
    const visible = rows.filter((row) => this.scopes.seesAgent(operator, row.agent.id));
    const page = queryFleet(visible, parsed);
    return { agents: page.agents, total: page.total, offset: parsed.offset, counts: countFleet(visible), gateways };
  }

  @Get('health')
  view(): Promise<OperatorHealthResponse> {
    return this.health.view();
  }
}
