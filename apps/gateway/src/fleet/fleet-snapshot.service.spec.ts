import { describe, expect, it } from 'vitest';
import type { FleetAgent, PresenceEntry } from '@ahp/protocol';
import type { FleetStore, PresenceStore } from '@ahp/store';
import { FLEET_SNAPSHOT_CACHE_FROM_ROWS, FLEET_SNAPSHOT_MAX_AGE_MS, FleetSnapshotService } from './fleet-snapshot.service.js';

function rows(count: number): FleetAgent[] {
  return Array.from({ length: count }, (_, i) => ({ agent: { id: `a${i}`, name: `A${i}` }, status: 'offline', last_seen_at: '2026-11-26T10:00:00.000Z', hooks_in_flight: 0 }));
}

/** Stores that count their reads and answer with `count` rows. */
function stores(count: number) {
  const reads = { fleet: 0 };
  const fleet = { list: async () => (reads.fleet++, rows(count)) } as unknown as FleetStore;
  const presence = { list: async (): Promise<PresenceEntry[]> => [], listGateways: async () => [] } as unknown as PresenceStore;
  return { reads, service: new FleetSnapshotService(fleet, presence) };
}

describe('FleetSnapshotService', () => {
  it('reads a small fleet fresh for every query, sharing only a read in flight', async () => {
    const { reads, service } = stores(10);
    await Promise.all([service.read(), service.read(), service.read()]);
    expect(reads.fleet).toBe(1);
    await service.read();
    expect(reads.fleet).toBe(2);
  });

  it('serves a large fleet from one read for a short while, then reads again', async () => {
    const { reads, service } = stores(FLEET_SNAPSHOT_CACHE_FROM_ROWS);
    const now = Date.now();
    await service.read(now);
    await service.read(now + FLEET_SNAPSHOT_MAX_AGE_MS - 1);
    expect(reads.fleet).toBe(1);
    await service.read(now + FLEET_SNAPSHOT_MAX_AGE_MS + 5_000);
    expect(reads.fleet).toBe(2);
  });
});
