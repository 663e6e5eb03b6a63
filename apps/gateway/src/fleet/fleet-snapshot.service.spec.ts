import { describe, expect, it, vi } from 'vitest';
import type { FleetAgent, PresenceEntry } from '@ahp/protocol';
import type { FleetStore, PresenceStore } from '@ahp/store';
import { FLEET_SNAPSHOT_CACHE_FROM_ROWS, FLEET_SNAPSHOT_MAX_AGE_MS, FLEET_SNAPSHOT_STALE_LIMIT_MS, FleetSnapshotService } from './fleet-snapshot.service.js';

function rows(count: number): FleetAgent[] {
  return Array.from({ length: count }, (_, i) => ({ agent: { id: `a${i}`, name: `A${i}` }, status: 'offline', last_seen_at: '2026-11-26T10:00:00.000Z', hooks_in_flight: 0 }));
}

/** Stores that count their reads and answer with `count()` rows (a function: tests grow the fleet between reads). */
function stores(initial: number) {
  const reads = { fleet: 0 };
  let count = initial;
  const fleet = { reader: () => ({ read: async () => (reads.fleet++, rows(count)) }) } as unknown as FleetStore;
  const presence = { list: async (): Promise<PresenceEntry[]> => [], listGateways: async () => [] } as unknown as PresenceStore;
  return { reads, grow: (by: number) => (count += by), service: new FleetSnapshotService(fleet, presence) };
}

describe('FleetSnapshotService', () => {
  it('reads a small fleet fresh for every query, sharing only a read in flight', async () => {
    const { reads, service } = stores(10);
    await Promise.all([service.read(), service.read(), service.read()]);
    expect(reads.fleet).toBe(1);
    await service.read();
    expect(reads.fleet).toBe(2);
  });

  it('serves a large fleet from one read for a short while', async () => {
    const { reads, service } = stores(FLEET_SNAPSHOT_CACHE_FROM_ROWS);
    const now = Date.now();
    await service.read(now);
    await service.read(now + FLEET_SNAPSHOT_MAX_AGE_MS - 1);
    expect(reads.fleet).toBe(1);
  });

  it('answers from the last read while the next one runs behind it, then serves the new one', async () => {
    const { reads, grow, service } = stores(FLEET_SNAPSHOT_CACHE_FROM_ROWS);
    const now = Date.now();
    await service.read(now);
    grow(1);
    const stale = await service.read(now + FLEET_SNAPSHOT_MAX_AGE_MS + 1);
    expect(stale.rows).toHaveLength(FLEET_SNAPSHOT_CACHE_FROM_ROWS);
    await vi.waitFor(() => expect(reads.fleet).toBe(2));
    const fresh = await service.read(now + FLEET_SNAPSHOT_MAX_AGE_MS + 2);
    expect(fresh.rows).toHaveLength(FLEET_SNAPSHOT_CACHE_FROM_ROWS + 1);
    expect(reads.fleet).toBe(2);
  });

  it('makes a query wait for a fresh read once the last one is too old to show', async () => {
    const { reads, grow, service } = stores(FLEET_SNAPSHOT_CACHE_FROM_ROWS);
    const now = Date.now();
    await service.read(now);
    grow(1);
    const fresh = await service.read(now + FLEET_SNAPSHOT_STALE_LIMIT_MS);
    expect(fresh.rows).toHaveLength(FLEET_SNAPSHOT_CACHE_FROM_ROWS + 1);
    expect(reads.fleet).toBe(2);
  });

  it('keeps serving the last read when a background read fails, and reports the failure to a query that waits', async () => {
    const failing = { read: vi.fn(async () => rows(FLEET_SNAPSHOT_CACHE_FROM_ROWS)) };
    const presence = { list: async (): Promise<PresenceEntry[]> => [], listGateways: async () => [] } as unknown as PresenceStore;
    const service = new FleetSnapshotService({ reader: () => failing } as unknown as FleetStore, presence);
    const now = Date.now();
    await service.read(now);
    failing.read.mockRejectedValue(new Error('redis down'));
    await expect(service.read(now + FLEET_SNAPSHOT_MAX_AGE_MS + 1)).resolves.toMatchObject({ rows: { length: FLEET_SNAPSHOT_CACHE_FROM_ROWS } });
    await vi.waitFor(() => expect(failing.read).toHaveBeenCalledTimes(2));
    await expect(service.read(now + FLEET_SNAPSHOT_STALE_LIMIT_MS)).rejects.toThrow('redis down');
  });
});
