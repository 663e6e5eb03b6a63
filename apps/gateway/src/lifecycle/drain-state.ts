import { Injectable } from '@nestjs/common';

/**
 * Whether this gateway is draining (shutting down). Once set it stays set: the upgrade refuses
 * new agents (503), /readyz reports 503 so load balancers stop routing here, new hooks are
 * answered `E_SHUTTING_DOWN`, and the presence heartbeat says `draining: true`.
 */
@Injectable()
export class DrainState {
  private drainingSince: number | undefined;

  get draining(): boolean {
    return this.drainingSince !== undefined;
  }

  /** Starts draining; returns false when it had already started. */
  start(now: number = Date.now()): boolean {
    if (this.drainingSince !== undefined) return false;
    this.drainingSince = now;
    return true;
  }
}
