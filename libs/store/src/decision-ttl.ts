/** Default of `RedisStoresOptions.decisionTtlMs` (how long a decided hook stays readable): 15 minutes. Its own module: the stores and the drill-down store both need it. */
export const DEFAULT_DECISION_TTL_MS = 15 * 60_000;
