/**
 * The Redis-backed parts of the control plane, as interfaces. Each doc comment states the
 * guarantee its implementation gives; gateway and workers depend on these, and the Redis
 * implementations (tested against a real server) live beside them in this library.
 *
 * Times are epoch milliseconds passed in by the caller (`now`), so that every process and
 * every Lua script compares the same numbers and tests control the clock.
 */
import type {
  AgentIdentity,
  ConsumptionAction,
  GatewayInfo,
  HookCorrelation,
  HookDecision,
  HookJobData,
  HookTrigger,
  PresenceEntry,
  SignalRecord,
  SignalResponse,
} from '@ahp/protocol';

/** Structured logging, injected: libraries never print. Fixed keys: agentId, sessionId, correlationId, jobId. */
export interface Logger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface OpenHookInput {
  hookId: string;
  agentId: string;
  sessionId: string;
  /** The gateway that holds the agent's socket now; it becomes the hook's owner. */
  gatewayId: string;
  trigger: HookTrigger;
  now: number;
  /** Absolute deadline; kept from the first open when the hook is re-sent. */
  deadlineAt: number;
}

/**
 * What `open` found:
 * - `created`: a new hook; the caller enqueues its job.
 * - `joined`: the hook was already pending (an SDK retry after a reconnect); the caller is now
 *   the owner that receives the decision. It may enqueue again: the queue ignores a job id it holds.
 * - `decided`: the hook was already decided; answer with this decision, do not evaluate again.
 * - `foreign`: the hook id belongs to another agent; refuse it.
 */
export type OpenHookOutcome =
  | { kind: 'created'; correlation: HookCorrelation }
  | { kind: 'joined'; correlation: HookCorrelation }
  | { kind: 'decided'; correlation: HookCorrelation; decision: HookDecision }
  | { kind: 'foreign' };

/**
 * Hook correlations and their decisions.
 *
 * Guarantees: `open` and `decide` are atomic (one Lua script each). `decide` is first-writer-wins:
 * a hook has exactly one stored decision, whether it came from a worker, a duplicate evaluation
 * after a stalled job, or the gateway's failure policy at the deadline; later calls return the
 * stored one with `first: false` and change nothing. The stored decision is kept for
 * `decisionTtlMs` after it is made so that a re-sent hook gets the first result.
 */
export interface HookStore {
  open(input: OpenHookInput): Promise<OpenHookOutcome>;
  /**
   * Stores the decision when none is stored yet, records a {@link SignalRecord} for each of its
   * signals, appends the signals to the signal log, and routes the decision to the current owner
   * gateway's decision stream (written to Redis first, so a gateway that reconnects re-reads it).
   * Returns the decision that is stored, which is the earlier one when this call was not first.
   */
  decide(hookId: string, decision: HookDecision, now: number): Promise<{ decision: HookDecision; first: boolean }>;
  get(hookId: string): Promise<{ correlation: HookCorrelation; decision?: HookDecision } | null>;
}

/**
 * One gateway's feed of decisions routed to it.
 *
 * Guarantee: at-least-once delivery of every decision routed to this gateway while the feed runs,
 * across Redis reconnects (it resumes from the last entry it saw). Entries routed while no feed
 * ran are not replayed: the hook's stored decision is the source of truth for a re-sent hook.
 */
export interface DecisionFeed {
  start(onDecision: (decision: HookDecision) => void): Promise<void>;
  stop(): Promise<void>;
}

/** Outcome of recording an agent's answer to a signal. */
export type SignalResponseOutcome =
  | { outcome: 'recorded'; record: SignalRecord }
  | { outcome: 'duplicate'; record: SignalRecord }
  | { outcome: 'conflict'; record: SignalRecord }
  | { outcome: 'not_found' }
  | { outcome: 'forbidden' }
  | { outcome: 'invalid_action'; allowed: readonly ConsumptionAction[] };

/**
 * Signals sent to agents and their responses.
 *
 * Guarantees: `respond` is atomic and checks, in order, that the signal exists (`not_found`),
 * was sent to this agent (`forbidden`), and that the action is valid for its intensity
 * (`invalid_action`). The first valid response is recorded and appended to the signal log; the
 * same response again is `duplicate` (no change), a different one is `conflict` (no change).
 */
export interface SignalStore {
  get(signalId: string): Promise<SignalRecord | null>;
  respond(agentId: string, response: SignalResponse, now: number): Promise<SignalResponseOutcome>;
}

/**
 * Who is connected where. Entries expire after `ttlMs` unless refreshed, so the view is right
 * within one TTL after a gateway dies without saying goodbye.
 */
export interface PresenceStore {
  /** The newest connection of an agent wins: it replaces any older entry. */
  connect(entry: PresenceEntry, ttlMs: number, now: number): Promise<void>;
  /** Refreshes the entry and its last activity, only while `sessionId` is still the agent's current one. */
  touch(agentId: string, sessionId: string, now: number, ttlMs: number): Promise<void>;
  /**
   * Removes the entry only while `sessionId` is still the agent's current one (a newer connection
   * keeps its entry) and, when `gatewayId` is given, while the entry is that gateway's. Pass it:
   * a resumed session keeps its id, so once the agent reconnected to another gateway, the old
   * gateway's late disconnect would otherwise remove the new entry.
   */
  disconnect(agentId: string, sessionId: string, gatewayId?: string): Promise<void>;
  list(now: number): Promise<PresenceEntry[]>;
  heartbeatGateway(info: GatewayInfo, ttlMs: number, now: number): Promise<void>;
  removeGateway(gatewayId: string): Promise<void>;
  listGateways(now: number): Promise<GatewayInfo[]>;
}

/** A session as `SessionStore.open` returns it. */
export type SessionOutcome =
  | { kind: 'created'; sessionId: string }
  | { kind: 'resumed'; sessionId: string }
  | { kind: 'foreign' };

/**
 * Agent sessions: an id the SDK presents again after a reconnect. A session belongs to one agent;
 * it expires `ttlMs` after its last use.
 */
export interface SessionStore {
  /** Resumes `requested` when it exists and belongs to the agent; creates `newId` otherwise (`foreign` when it belongs to another agent). */
  open(agent: AgentIdentity, requested: string | undefined, newId: string, now: number, ttlMs: number): Promise<SessionOutcome>;
}

/**
 * The BullMQ queue of hook evaluations. The job id is the hook id, so enqueuing a hook that is
 * already queued or running is a no-op. Job data carries no secret.
 */
export interface HookQueue {
  enqueue(job: HookJobData): Promise<void>;
  /** Jobs waiting, running, delayed and failed, for health and benchmarks. */
  counts(): Promise<{ waiting: number; active: number; delayed: number; failed: number }>;
  close(): Promise<void>;
}
