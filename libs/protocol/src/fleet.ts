/**
 * The fleet view and the operators' live feed: what the console shows about every agent the
 * control plane has seen, and the events a gateway pushes to operators while something changes.
 *
 * The live feed is a Server-Sent Events stream (`GET /v1/operator/live`). Its events are hints on
 * top of snapshots, never the only copy of anything: after every (re)connection the first event is
 * `ready`, on which a client re-reads the snapshots it shows (fleet, pending requests, …) and then
 * applies the events that follow. An event lost while disconnected is therefore never missed.
 */
import { z } from 'zod';
import { AgentIdentitySchema } from './agent.js';
import { GatewayInfoSchema } from './hook-job.js';
import { IntensitySchema } from './intensity.js';
import { MAX_LIST_LIMIT, TimelineEntrySchema, queryInt } from './operator.js';
import { IdSchema, ShortStringSchema, TimestampSchema, UuidSchema, boundedArray } from './primitives.js';
import { RequestIdSchema, RequestStatusSchema, RequestTypeSchema } from './request.js';
import { HookTriggerSchema } from './trigger.js';

/**
 * How an agent is doing, as the console shows it:
 * - `connected`: connected, and no hook since it connected;
 * - `working`: connected, with a hook awaiting its decision or one sent within the last
 *   {@link FLEET_WORKING_WINDOW_MS} — unless that hook was a `stop` (the agent ended its turn);
 * - `idle`: connected, quiet for longer than that, or its last hook was a `stop`;
 * - `offline`: seen before, not connected now.
 */
export const FLEET_AGENT_STATUSES = ['connected', 'working', 'idle', 'offline'] as const;
export const FleetAgentStatusSchema = z.enum(FLEET_AGENT_STATUSES).meta({ id: 'FleetAgentStatus', description: 'connected | working | idle | offline.' });
export type FleetAgentStatus = z.infer<typeof FleetAgentStatusSchema>;

/** An agent whose last hook is more recent than this is `working`. */
export const FLEET_WORKING_WINDOW_MS = 30_000;

/** The agent's most recent hook. */
export const FleetLastHookSchema = z
  .strictObject({
    hook_id: UuidSchema,
    trigger: HookTriggerSchema,
    /** `context.tool.name` of a tool hook, when it named one. */
    tool: ShortStringSchema.optional(),
    at: TimestampSchema,
  })
  .meta({ id: 'FleetLastHook' });
export type FleetLastHook = z.infer<typeof FleetLastHookSchema>;

/** The decision the agent last received. */
export const FleetLastDecisionSchema = z
  .strictObject({
    hook_id: UuidSchema,
    allowed: z.boolean(),
    intensity: IntensitySchema.nullable(),
    decided_by: z.enum(['oracles', 'failure_policy']),
    at: TimestampSchema,
    /**
     * Set when the decision is a block that waits for a person (`await_approval`): the call is
     * paused on this tool approval request until its deadline, not denied.
     */
    awaiting_approval: z.strictObject({ request_id: RequestIdSchema, deadline: TimestampSchema }).optional(),
  })
  .meta({ id: 'FleetLastDecision' });
export type FleetLastDecision = z.infer<typeof FleetLastDecisionSchema>;

/**
 * The last hook the gateway refused before evaluating it, for an admission reason an operator
 * must see: `E_PLAN_PENDING`, `E_PLAN_REQUIRED` (no approved plan; `request_id` names the
 * rejected or expired one), `E_SIGNAL_UNANSWERED` (`signal_ids`: the block/control signals the
 * agent left unanswered). Compare `at` with `last_decision.at`: a later decision means the agent
 * got past it.
 */
export const FleetLastRefusalSchema = z
  .strictObject({
    hook_id: UuidSchema,
    trigger: HookTriggerSchema,
    code: ShortStringSchema,
    request_id: RequestIdSchema.optional(),
    signal_ids: boundedArray(UuidSchema, 20).optional(),
    at: TimestampSchema,
  })
  .meta({ id: 'FleetLastRefusal' });
export type FleetLastRefusal = z.infer<typeof FleetLastRefusalSchema>;

/**
 * How an agent reaches AHP when not over the SDK's WebSocket — its kind in the fleet (absent: an
 * SDK agent). `claude-code`, `codex`, `copilot`: a coding agent's hooks (docs/claude-code.md,
 * docs/coding-agents.md). Such a client has no connection — its presence is refreshed by its
 * hooks and ages out when the session goes quiet — and cannot send `signal_response`: its signals
 * are answered by inference where what it did next tells the answer (Claude Code), and are
 * otherwise `not_reported` in the signal log, never "unanswered".
 */
export const FleetClientSchema = z
  .enum(['claude-code', 'codex', 'copilot'])
  .meta({ id: 'FleetClient', description: 'A coding agent reaching AHP through its hooks (claude-code, codex, copilot); answers inferred or not reported.' });
export type FleetClient = z.infer<typeof FleetClientSchema>;

/** One row of the fleet: an agent, where it is connected (if it is) and what it last did. */
export const FleetAgentSchema = z
  .strictObject({
    agent: AgentIdentitySchema,
    /** Absent for an SDK agent on the WebSocket; see {@link FleetClientSchema}. */
    client: FleetClientSchema.optional(),
    status: FleetAgentStatusSchema,
    /** While connected: the gateway and session of its current connection. */
    gateway_id: IdSchema.optional(),
    session_id: IdSchema.optional(),
    connected_at: TimestampSchema.optional(),
    /** Last time anything was heard from it (connection, hook, event, heartbeat). */
    last_seen_at: TimestampSchema,
    last_hook: FleetLastHookSchema.optional(),
    last_decision: FleetLastDecisionSchema.optional(),
    last_refusal: FleetLastRefusalSchema.optional(),
    /** Hooks awaiting a decision on its connection, as last reported by its gateway. */
    hooks_in_flight: z.int().nonnegative(),
  })
  .meta({ id: 'FleetAgent', description: 'An agent as the fleet view shows it.' });
export type FleetAgent = z.infer<typeof FleetAgentSchema>;

/** Agents per status, and in total. */
export const FleetCountsSchema = z
  .strictObject({
    total: z.int().nonnegative(),
    connected: z.int().nonnegative(),
    working: z.int().nonnegative(),
    idle: z.int().nonnegative(),
    offline: z.int().nonnegative(),
  })
  .meta({ id: 'FleetCounts' });
export type FleetCounts = z.infer<typeof FleetCountsSchema>;

/** Counts every status of `agents`. */
export function countFleet(agents: readonly Pick<FleetAgent, 'status'>[]): FleetCounts {
  const counts: FleetCounts = { total: agents.length, connected: 0, working: 0, idle: 0, offline: 0 };
  for (const { status } of agents) counts[status] += 1;
  return counts;
}

/** `GET /v1/operator/fleet`: every agent seen in the retention window, sorted by id, with counts and the live gateways. */
/** The most rows one fleet answer carries (and the default, so a plain `GET /fleet` lists everyone up to it). */
export const MAX_FLEET_PAGE = 5_000;

/** What the fleet can be sorted by: agent id, status, team, or when it was last seen. */
/**
 * The fleet's filter on the last decision an agent received: `none` (never decided), `allowed`,
 * `denied` (by the oracles), `awaiting_approval` (a block waiting for a person: paused, not
 * denied), `failure_policy` (decided by the failure policy, the oracles not having answered).
 */
export const FleetDecisionFilterSchema = z.enum(['none', 'allowed', 'denied', 'awaiting_approval', 'failure_policy']);
export type FleetDecisionFilter = z.infer<typeof FleetDecisionFilterSchema>;

export const FleetSortSchema = z.enum(['agent', 'status', 'team', 'last_seen']);
export type FleetSort = z.infer<typeof FleetSortSchema>;

/**
 * Query of `GET /v1/operator/fleet`: search, filters, sort and a page, applied on the gateway so a
 * console never downloads a fleet of tens of thousands of rows. `q` matches the agent's id, name
 * or team (case-insensitive, substring). Unknown parameters are refused.
 */
export const FleetQuerySchema = z
  .strictObject({
    q: z.string().max(100).optional(),
    status: FleetAgentStatusSchema.optional(),
    team: IdSchema.optional(),
    gateway: IdSchema.optional(),
    /** How the agent reaches AHP: `sdk` (the WebSocket) or a coding agent's hooks. */
    client: z.enum(['sdk', ...FleetClientSchema.options]).optional(),
    /** The last decision received ({@link FleetDecisionFilterSchema}). */
    decision: FleetDecisionFilterSchema.optional(),
    /** @defaultValue `agent` */
    sort: FleetSortSchema.default('agent'),
    /** @defaultValue `asc` (`last_seen` reads best `desc`: most recent first) */
    order: z.enum(['asc', 'desc']).default('asc'),
    /** @defaultValue 0 */
    offset: queryInt(0, 100_000_000, 0),
    /** @defaultValue {@link MAX_FLEET_PAGE} */
    limit: queryInt(1, MAX_FLEET_PAGE, MAX_FLEET_PAGE),
  })
  .meta({ id: 'FleetQuery', description: 'Fleet search, filters (status, team, gateway, client, last decision), sort and page.' });
export type FleetQuery = z.infer<typeof FleetQuerySchema>;

export const FleetResponseSchema = z
  .strictObject({
    /** The page of rows matching the query. */
    agents: z.array(FleetAgentSchema),
    /** How many rows match the query (all pages). */
    total: z.int().nonnegative(),
    /** Where this page starts in the matching rows. */
    offset: z.int().nonnegative(),
    /** Counts over every agent the token sees, whatever the query: the fleet at a glance. */
    counts: FleetCountsSchema,
    gateways: z.array(GatewayInfoSchema),
  })
  .meta({ id: 'FleetResponse' });
export type FleetResponse = z.infer<typeof FleetResponseSchema>;

// --- the live feed ------------------------------------------------------------------------------

/** Request events pushed on the live feed (the request's history `event`). */
export const LiveRequestEventSchema = z
  .strictObject({
    kind: z.literal('request'),
    request_id: RequestIdSchema,
    type: RequestTypeSchema,
    /** created | approved | rejected | expired | cancelled | refused */
    event: ShortStringSchema,
    status: RequestStatusSchema,
    actor: z.strictObject({ kind: z.enum(['agent', 'operator', 'system']), id: IdSchema }),
    at: TimestampSchema,
    /** The agent that opened the request (absent on `refused`, which carries no state): its team is the request's team for scoped operators. */
    sender: IdSchema.optional(),
  })
  .meta({ id: 'LiveRequestEvent' });

/**
 * Every event of `GET /v1/operator/live`. The SSE `event:` field is the `kind`; `data:` is this
 * object as JSON.
 */
export const OperatorLiveEventSchema = z
  .discriminatedUnion('kind', [
    /** First event of every connection: re-read your snapshots now. */
    z.strictObject({ kind: z.literal('ready'), gateway_id: IdSchema, at: TimestampSchema }),
    /**
     * Sent every `interval_ms` while the stream is healthy, so a client can tell a quiet fleet from
     * a stalled stream (a comment line is invisible to EventSource) and learn the server's clock.
     */
    z.strictObject({ kind: z.literal('heartbeat'), gateway_id: IdSchema, at: TimestampSchema, interval_ms: z.int().min(100).max(60_000) }),
    /** An agent's fleet row changed (connected, disconnected, hooked, got a decision). */
    z.strictObject({ kind: z.literal('agent'), agent: FleetAgentSchema }),
    LiveRequestEventSchema,
    /** Signals were sent or answered; `agent_ids` names whose (re-read the log for the lines). */
    z.strictObject({ kind: z.literal('signals'), agent_ids: boundedArray(IdSchema, MAX_LIST_LIMIT), at: TimestampSchema }),
    /** An agent reported an event (its timeline grew). */
    z.strictObject({ kind: z.literal('timeline'), entry: TimelineEntrySchema }),
    /** A hooks configuration version became current. */
    z.strictObject({ kind: z.literal('config'), version: z.int().positive(), at: TimestampSchema }),
  ])
  .meta({ id: 'OperatorLiveEvent', description: 'An event of the operators live feed (SSE).' });
export type OperatorLiveEvent = z.infer<typeof OperatorLiveEventSchema>;
export type OperatorLiveEventKind = OperatorLiveEvent['kind'];

/** Most agents one live stream may follow by name (`?agents=`). */
export const MAX_LIVE_AGENTS = 200;

/**
 * The query of `GET /v1/operator/live`. `agents` (comma-separated ids, at most
 * {@link MAX_LIVE_AGENTS}) narrows the `agent` rows and `timeline` entries to those agents — a
 * page of the fleet, one agent's page — so a console does not receive every row of a large
 * fleet; absent, the stream carries them all. The other kinds are not narrowed.
 */
export const OperatorLiveQuerySchema = z
  .strictObject({
    agents: z
      .string()
      .max(MAX_LIVE_AGENTS * 129)
      .transform((value) => [...new Set(value.split(',').map((part) => part.trim()).filter((part) => part !== ''))])
      .pipe(boundedArray(IdSchema, MAX_LIVE_AGENTS))
      .optional(),
  })
  .meta({ id: 'OperatorLiveQuery', description: 'Query of GET /v1/operator/live.' });
export type OperatorLiveQuery = z.infer<typeof OperatorLiveQuerySchema>;

/** Whether a stream following `agents` (undefined: every agent) carries `event`. */
export function liveEventFollowed(event: OperatorLiveEvent, agents: ReadonlySet<string> | undefined): boolean {
  if (agents === undefined) return true;
  if (event.kind === 'agent') return agents.has(event.agent.agent.id);
  if (event.kind === 'timeline') return agents.has(event.entry.agent_id);
  return true;
}

// --- health of the control plane (the console's health page) -------------------------------------

/** Decision latency percentiles over a window, in milliseconds (hook received → decision sent). */
export const LatencyPercentilesSchema = z
  .strictObject({
    samples: z.int().nonnegative(),
    p50: z.number().nonnegative().nullable(),
    p95: z.number().nonnegative().nullable(),
    p99: z.number().nonnegative().nullable(),
  })
  .meta({ id: 'LatencyPercentiles', description: 'Percentiles of a latency sample (null while there are no samples).' });
export type LatencyPercentiles = z.infer<typeof LatencyPercentilesSchema>;

/** A live oracle worker process, refreshed while it runs. */
export const WorkerInfoSchema = z
  .strictObject({
    worker_id: IdSchema,
    hostname: ShortStringSchema,
    pid: z.int().positive(),
    concurrency: z.int().positive(),
    started_at: TimestampSchema,
    last_seen_at: TimestampSchema,
    /** Jobs this process evaluated since it started. */
    jobs_processed: z.int().nonnegative(),
    /** The hooks configuration version it evaluates with (absent: built-in defaults). */
    config_version: z.int().positive().optional(),
  })
  .meta({ id: 'WorkerInfo', description: 'A live oracle worker process.' });
export type WorkerInfo = z.infer<typeof WorkerInfoSchema>;

/** One gateway's health: its presence entry, hooks waiting on it, and its recent decision latency. */
export const GatewayHealthSchema = z
  .strictObject({
    gateway: GatewayInfoSchema,
    hooks_in_flight: z.int().nonnegative().optional(),
    decision_latency_ms: LatencyPercentilesSchema.optional(),
  })
  .meta({ id: 'GatewayHealth' });
export type GatewayHealth = z.infer<typeof GatewayHealthSchema>;

/** `GET /v1/operator/health`: gateways, workers, the hook queue and decision latency across gateways. */
export const OperatorHealthResponseSchema = z
  .strictObject({
    gateways: z.array(GatewayHealthSchema),
    workers: z.array(WorkerInfoSchema),
    queue: z.strictObject({
      waiting: z.int().nonnegative(),
      active: z.int().nonnegative(),
      delayed: z.int().nonnegative(),
      failed: z.int().nonnegative(),
    }),
    /** Over the last minute, all gateways together (each gateway's recent samples, merged). */
    decision_latency_ms: LatencyPercentilesSchema,
    at: TimestampSchema,
  })
  .meta({ id: 'OperatorHealthResponse' });
export type OperatorHealthResponse = z.infer<typeof OperatorHealthResponseSchema>;

/** What the status of a fleet row is derived from. */
export interface FleetStatusInput {
  connected: boolean;
  hooks_in_flight: number;
  /** Epoch ms of the agent's last hook, if it sent one since connecting. */
  last_hook_at_ms: number | undefined;
  /** Epoch ms of its current connection. */
  connected_at_ms: number | undefined;
  /** The trigger of that last hook: after a `stop` the agent waits for its user, so it is idle. */
  last_hook_trigger?: string | undefined;
}

/** The {@link FleetAgentStatus} of an agent at `now` (see the status list for the rules). */
export function fleetStatus(input: FleetStatusInput, now: number): FleetAgentStatus {
  if (!input.connected) return 'offline';
  if (input.hooks_in_flight > 0) return 'working';
  const sinceConnect = input.last_hook_at_ms !== undefined && (input.connected_at_ms === undefined || input.last_hook_at_ms >= input.connected_at_ms);
  if (!sinceConnect) return 'connected';
  if (input.last_hook_trigger === 'stop') return 'idle';
  return now - (input.last_hook_at_ms as number) <= FLEET_WORKING_WINDOW_MS ? 'working' : 'idle';
}

// --- decision latency as a mergeable histogram ----------------------------------------------------

/**
 * Upper bounds (ms) of the latency buckets every gateway uses: 0.25 ms growing by 25 % per bucket
 * up to about 60 s, plus an overflow bucket. Fixed bounds make histograms of several gateways
 * addable, so fleet-wide percentiles come from all samples rather than an average of averages;
 * a percentile read from them is within one bucket (≤ 25 %) of the exact value.
 */
export const LATENCY_BUCKET_BOUNDS_MS: readonly number[] = Object.freeze(
  Array.from({ length: 56 }, (_, i) => Math.round(0.25 * 1.25 ** i * 1000) / 1000),
);

/** The bucket of a latency: the first whose bound is ≥ it; the last index (overflow) above every bound. */
export function latencyBucket(ms: number): number {
  let low = 0;
  let high = LATENCY_BUCKET_BOUNDS_MS.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((LATENCY_BUCKET_BOUNDS_MS[mid] as number) >= ms) high = mid;
    else low = mid + 1;
  }
  return low;
}

/** Percentiles of a histogram over {@link LATENCY_BUCKET_BOUNDS_MS} (counts has one more slot: overflow), each reported as its bucket's upper bound. */
export function latencyPercentiles(counts: readonly number[]): LatencyPercentiles {
  const samples = counts.reduce((sum, count) => sum + count, 0);
  const at = (q: number): number | null => {
    if (samples === 0) return null;
    const rank = Math.ceil(q * samples);
    let seen = 0;
    for (let i = 0; i < counts.length; i += 1) {
      seen += counts[i] as number;
      if (seen >= rank) return LATENCY_BUCKET_BOUNDS_MS[Math.min(i, LATENCY_BUCKET_BOUNDS_MS.length - 1)] as number;
    }
    return LATENCY_BUCKET_BOUNDS_MS[LATENCY_BUCKET_BOUNDS_MS.length - 1] as number;
  };
  return { samples, p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

/** One gateway's health as it publishes it to Redis (read back by every gateway's health endpoint). */
export const GatewayHealthSnapshotSchema = z
  .strictObject({
    gateway_id: IdSchema,
    hooks_in_flight: z.int().nonnegative(),
    /** Decisions delivered in the last `window_ms`, per bucket of {@link LATENCY_BUCKET_BOUNDS_MS} (+ overflow). */
    latency_counts: z.array(z.int().nonnegative()).length(LATENCY_BUCKET_BOUNDS_MS.length + 1),
    window_ms: z.int().positive(),
    at: TimestampSchema,
  })
  .meta({ id: 'GatewayHealthSnapshot' });
export type GatewayHealthSnapshot = z.infer<typeof GatewayHealthSnapshotSchema>;
