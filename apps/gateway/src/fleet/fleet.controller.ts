import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { countFleet, type FleetResponse, type OperatorHealthResponse } from '@ahp/protocol';
import type { FleetStore, PresenceStore } from '@ahp/store';
import { OperatorAuthGuard } from '../operators/operator-auth.guard.js';
import { FLEET_STORE, PRESENCE_STORE } from '../store/store.tokens.js';
import { GatewayHealthService } from './gateway-health.service.js';

/** `GET /v1/operator/fleet` and `GET /v1/operator/health` (any role). */
@Controller('v1/operator')
@UseGuards(OperatorAuthGuard)
export class FleetController {
  constructor(
    @Inject(FLEET_STORE) private readonly fleet: FleetStore,
    @Inject(PRESENCE_STORE) private readonly presence: PresenceStore,
    @Inject(GatewayHealthService) private readonly health: GatewayHealthService,
  ) {}

  @Get('fleet')
  async list(): Promise<FleetResponse> {
    const now = Date.now();
    const [connected, gateways] = await Promise.all([this.presence.list(now), this.presence.listGateways(now)]);
    const agents = await this.fleet.list(now, connected);
    return { agents, counts: countFleet(agents), gateways };
  }

  @Get('health')
  view(): Promise<OperatorHealthResponse> {
    return this.health.view();
  }
}
