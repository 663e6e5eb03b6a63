import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { countFleet, type FleetResponse, type OperatorHealthResponse, type OperatorIdentity } from '@ahp/protocol';
import type { FleetStore, PresenceStore } from '@ahp/store';
import { CurrentOperator, OperatorAuthGuard } from '../operators/operator-auth.guard.js';
import { OperatorScopeService } from '../operators/operator-scope.service.js';
import { FLEET_STORE, PRESENCE_STORE } from '../store/store.tokens.js';
import { GatewayHealthService } from './gateway-health.service.js';

/** `GET /v1/operator/fleet` and `GET /v1/operator/health` (any role; the health view is infrastructure, the same for every scope). */
@Controller('v1/operator')
@UseGuards(OperatorAuthGuard)
export class FleetController {
  constructor(
    @Inject(FLEET_STORE) private readonly fleet: FleetStore,
    @Inject(PRESENCE_STORE) private readonly presence: PresenceStore,
    @Inject(GatewayHealthService) private readonly health: GatewayHealthService,
    @Inject(OperatorScopeService) private readonly scopes: OperatorScopeService,
  ) {}

  /** The fleet; for a scoped token only its teams' agents, counted over them. */
  @Get('fleet')
  async list(@CurrentOperator() operator: OperatorIdentity): Promise<FleetResponse> {
    const now = Date.now();
    const [connected, gateways] = await Promise.all([this.presence.list(now), this.presence.listGateways(now)]);
    const agents = (await this.fleet.list(now, connected)).filter((row) => this.scopes.seesAgent(operator, row.agent.id));
    return { agents, counts: countFleet(agents), gateways };
  }

  @Get('health')
  view(): Promise<OperatorHealthResponse> {
    return this.health.view();
  }
}
