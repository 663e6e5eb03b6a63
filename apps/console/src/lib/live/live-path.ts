import { MAX_LIVE_AGENTS } from '@ahp/protocol';

/** Agents a view shows live: their ids, or every agent. */
export type AgentInterest = readonly string[] | 'all';

/**
 * The feed's path for the views' interests: every agent when no view said what it shows (a page
 * that has not mounted yet must not miss rows), when one asks for all, or when the union is longer
 * than the gateway accepts; else only the union, sorted.
 */
export function livePath(interests: Iterable<AgentInterest>): string {
  const ids = new Set<string>();
  let any = false;
  for (const interest of interests) {
    any = true;
    if (interest === 'all') return '/api/live';
    for (const id of interest) ids.add(id);
  }
  if (!any || ids.size > MAX_LIVE_AGENTS) return '/api/live';
  return `/api/live?agents=${encodeURIComponent([...ids].sort().join(','))}`;
}
