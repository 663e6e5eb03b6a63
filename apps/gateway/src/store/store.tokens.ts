/**
 * Injection tokens of the Redis-backed parts, so services depend on the store's interfaces
 * (`HookStore`, `HookQueue`, …) and never on how they are built.
 */

/** The gateway's node-redis client (`RedisClient`), shared by every store and the queue. */
export const REDIS = Symbol('REDIS');
/** `StoreKeys` of this deployment's prefix. */
export const STORE_KEYS = Symbol('STORE_KEYS');
/** `HookStore`. */
export const HOOK_STORE = Symbol('HOOK_STORE');
/** `SignalStore`. */
export const SIGNAL_STORE = Symbol('SIGNAL_STORE');
/** `PresenceStore`. */
export const PRESENCE_STORE = Symbol('PRESENCE_STORE');
/** `SessionStore`. */
export const SESSION_STORE = Symbol('SESSION_STORE');
/** `HookQueue` (the BullMQ queue of hook evaluations). */
export const HOOK_QUEUE = Symbol('HOOK_QUEUE');
/** This gateway's `GatewayFeed`: hook decisions and inbox notices routed to it. */
export const GATEWAY_FEED = Symbol('GATEWAY_FEED');
/** `RequestStore` (shutdown, plan and tool approvals). */
export const REQUEST_STORE = Symbol('REQUEST_STORE');
/** `OperatorSignalStore` (signals operators push to agents, until answered or expired). */
export const OPERATOR_SIGNAL_STORE = Symbol('OPERATOR_SIGNAL_STORE');
/** `InboxStore` (agents' durable inboxes). */
export const INBOX_STORE = Symbol('INBOX_STORE');
/** `TimelineStore` (agents' reported events). */
export const TIMELINE_STORE = Symbol('TIMELINE_STORE');
/** `RedisConfigStore` (published hooks configuration versions). */
export const CONFIG_STORE = Symbol('CONFIG_STORE');
/** `FleetStore` (one row per agent seen, for the fleet view and the live feed). */
export const FLEET_STORE = Symbol('FLEET_STORE');
/** `HealthStore` (live workers, gateway health snapshots). */
export const HEALTH_STORE = Symbol('HEALTH_STORE');
/** This gateway's `LiveTail` (what the operators' live feed relays). */
export const LIVE_TAIL = Symbol('LIVE_TAIL');
/** `HookDetailStore` (the hook drill-down: evaluation detail, delivery time, answers). */
export const HOOK_DETAIL_STORE = Symbol('HOOK_DETAIL_STORE');
