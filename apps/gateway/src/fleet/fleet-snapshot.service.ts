import { Inject, Injectable } from '@nestjs/common';
import type { FleetAgent, GatewayInfo } from '@ahp/protocol';
import type { FleetStore, PresenceStore } from '@ahp/store';
import { FLEET_STORE, PRESENCE_STORE } from '../store/store.tokens.js';

export interface FleetSnapshot {
  rows: readonly FleetAgent[];
  gateways: GatewayInfo[];
}

/**
 * The whole fleet read from Redis for operators' queries. With 20,000 agents a read is 20,000
 * hashes; queries that arrive while one is in flight (operators paging, searching, re-reading
 * after live events) wait for it instead of starting their own. Nothing is kept after the read:
 * a query never sees a fleet older than the moment it was asked.
 */
@Injectable()
export class FleetSnapshotService {
  private reading: Promise<FleetSnapshot> | undefined;

  constructor(
    @Inject(FLEET_STORE) private readonly fleet: FleetStore,
    @Inject(PRESENCE_STORE) private readonly presence: PresenceStore,
  ) {}

  read(): Promise<FleetSnapshot> {
    this.reading ??= this.load().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async load(): Promise<FleetSnapshot> {
    const now = Date.now();
    const [connected, gateways] = await Promise.all([this.presence.list(now), this.presence.listGateways(now)]);
    return { rows: await this.fleet.list(now, connected), gateways };
  }
}
