/**
 * Small helpers for checking what callers hand to the store.
 */

/** A zod issue list as one line for an error message: the protocol's summary, one path style everywhere. */
export { describeIssues } from '@ahp/protocol';

/**
 * JSON with every object's keys sorted, so that two equal values are equal strings whatever order
 * their keys arrived in. Used to tell a repeated signal response from a different one inside Lua.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const sorted = Object.create(null) as Record<string, unknown>;
    for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
    return sorted;
  }
  return value;
}
