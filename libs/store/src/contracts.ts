/**
 * The Redis-backed parts of the control plane, as interfaces. Each doc comment states the
 * guarantee its implementation gives; gateway and workers depend on these, and the Redis
 * implementations (tested against a real server) live beside them in this library.
 *
 * Times are epoch milliseconds passed in by the caller (`now`), so that every process and
 * every Lua script compares the same numbers and tests control the clock.
 */
import type {
  ConfigVersionSummary,
  ConsumptionAction,
  InboxMessage,
  ProtocolResponse,
  ProtocolState,
  RequestActor,
  RequestHistoryEntry,
  RequestStatus,
  RequestType,
  GatewayInfo,
  HookCorrelation,
  HookDecision,
  HookJobData,
  HookTrigger,
  JsonObject,
  OracleVerdict,
  PresenceEntry,
  SignalRecord,
  SignalResponse,
  StoredConfigVersion,
} from '@ahp/protocol';
import type { LeaseRequest, RateLimit } from './rate-limiter.js';

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
  /**
   * The agent's frame rate limit: the hook takes one token from the agent's bucket (the one
   * `createRateLimiter` keeps for kind `agent`, {@link AGENT_RATE_KIND}) in the same script, before
   * anything else. Omitted: the hook is not counted.
   */
  rateLimit?: RateLimit;
  /**
   * With `rateLimit`: take up to `upTo` tokens from the bucket in the same step (at most 1/share
   * of what it holds), one for this hook and the rest for the caller to spend on the agent's next
   * frames without asking Redis (`created.leased`). Only a created hook keeps them; any other
   * outcome hands the extra tokens back. Ignored under Redis Cluster, where the token is taken in
   * a call of its own (a lease there would be lost whenever the hook's own step fails).
   * Omitted: exactly one token.
   */
  rateLease?: LeaseRequest;
  /**
   * The plan gate of a new `pre-tool-use` hook (ignored for other triggers): `gate` refuses it
   * while the agent has a pending plan approval or its last settled plan was not approved;
   * `require` also when it never had a plan settled (its team requires one); `open` lets it
   * through (a planning tool of its team).
   * @defaultValue `gate`
   */
  planGate?: 'open' | 'gate' | 'require';
  /**
   * Whether this client must answer block and control signals: a new hook is refused while the
   * agent (in any of its sessions) has one whose answer grace ended, and the hook's own such signals are tracked
   * (decide-hook). False for clients that cannot answer (the Claude Code hook endpoint).
   * @defaultValue `true`
   */
  answersRequired?: boolean;
}

/**
 * What `open` found:
 * - `created`: a new hook; the caller enqueues its job.
 * - `joined`: the hook was already pending (an SDK retry after a reconnect); the caller is now
 *   the owner that receives the decision. It may enqueue again: the queue ignores a job id it holds.
 * - `decided`: the hook was already decided; answer with this decision, do not evaluate again.
 * - `foreign`: the hook id belongs to another agent; refuse it.
 * - `gated`: a new `pre-tool-use` hook of an agent whose plan approval `requestId` is pending
 *   (docs/spec/teams.md#plan-gate: no tool use before the plan is approved). Nothing was recorded and nothing is
 *   enqueued: deny the tool call. Only new hooks are gated; a re-sent hook that already exists
 *   keeps its own course (`joined`, `decided`).
 */
export type OpenHookOutcome =
  /** `leased`: tokens taken beyond this hook's own (see `rateLease`), already counted in the bucket; 0 without a lease. */
  | { kind: 'created'; correlation: HookCorrelation; leased: number }
  | { kind: 'joined'; correlation: HookCorrelation }
  | { kind: 'decided'; correlation: HookCorrelation; decision: HookDecision }
  | { kind: 'foreign' }
  | { kind: 'gated'; requestId: string }
  /**
   * A new `pre-tool-use` hook refused by the plan gate with nothing pending: the agent's last
   * settled plan `requestId` was `rejected` or `expired`, or (`none`) its team requires a plan
   * and none was approved. Nothing was recorded.
   */
  | { kind: 'plan_required'; status: 'rejected' | 'expired' | 'none'; requestId?: string }
  /** A new hook of an agent that left these block/control signals unanswered past their grace, in this session or an earlier one (oldest first, at most 20). Nothing was recorded. */
  | { kind: 'unanswered'; signalIds: string[] }
  | { kind: 'limited'; retryAfterMs: number };

/** Options of `HookStore.decide`. */
export interface DecideHookOptions {
  /**
   * How long the agent has to answer the decision's block and control signals (the hook's
   * `answer_grace`) before the agent's next hooks (in any session) are refused. Only for hooks opened with
   * `answersRequired`.
   * @defaultValue `DEFAULT_ANSWER_GRACE_MS` of `@ahp/protocol`
   */
  answerGraceMs?: number;
  /**
   * What the drill-down shows about this evaluation (docs/console.md "Hook drill-down"): stored
   * with the first decision, in the same script (no extra round trip) — in full in the drill-down
   * record when it has signals, else its verdicts and stage times as the hook record's summary —
   * and its stage times added to each signal-log entry. @defaultValue none: nothing recorded
   */
  evaluation?: HookEvaluationInput;
  /**
   * W3C `traceparent` of the span that stores the decision: routed with the decision to the
   * waiting gateway, whose delivery span continues the trace. @defaultValue none (tracing off)
   */
  traceparent?: string;
}

/** What the worker knows about an evaluation beyond the decision (see {@link DecideHookOptions.evaluation}). */
export interface HookEvaluationInput {
  agentId: string;
  sessionId: string;
  /** When the gateway handed the job to the queue (BullMQ's job timestamp, gateway clock). */
  enqueuedAt: number;
  /** When this worker picked the job up. */
  pickedAt: number;
  /** The hook's context; stored redacted (`redactSecrets`) and only up to `MAX_DRILL_DOWN_CONTEXT_BYTES`. */
  context: JsonObject;
  oracles: readonly OracleVerdict[];
  /** The hook's trace id when the worker traced it and the trace is sampled (the drill-down's link to it); absent otherwise. */
  traceId?: string;
}

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
  decide(hookId: string, decision: HookDecision, now: number, options?: DecideHookOptions): Promise<{ decision: HookDecision; first: boolean }>;
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

/** An inbox notification on a gateway feed: the agent has new messages in its inbox. */
export interface InboxNotice {
  agent_id: string;
}

/** What a {@link GatewayFeed} delivers; an entry kind without a handler is skipped. */
export interface GatewayFeedHandlers {
  /**
   * `traceparent` is the W3C trace context the deciding worker routed with the decision, when it
   * traces; `decidedAt` (epoch ms) comes with it, so the delivery span starts at the drill-down's
   * `decided_at`.
   */
  onDecision?: (decision: HookDecision, traceparent?: string, decidedAt?: number) => void;
  onInbox?: (notice: InboxNotice) => void;
  /** An operator pushed a signal to this agent (operator-signal-store.ts); same shape as an inbox notice. */
  onSignal?: (notice: InboxNotice) => void;
}

/**
 * One gateway's feed: the stream of everything routed to it — hook decisions, and notices that an
 * agent it holds has new inbox messages. Same guarantee as {@link DecisionFeed}: at-least-once
 * while it runs, across Redis reconnects. A notice is only a wake-up: the messages themselves stay
 * in the inbox, so one lost while no feed ran is found when the agent's inbox is next read.
 */
export interface GatewayFeed {
  start(handlers: GatewayFeedHandlers): Promise<void>;
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
  /**
   * `origin: 'inferred'` records an answer the control plane read from what a client that cannot
   * report answers did next (Claude Code); the log entry says so (`answer: inferred`).
   */
  respond(agentId: string, response: SignalResponse, now: number, origin?: 'inferred'): Promise<SignalResponseOutcome>;
}

/** One agent entry for {@link PresenceStore.touch} to refresh: the session that was active, and when (epoch ms). */
export interface PresenceTouch {
  agentId: string;
  sessionId: string;
  at: number;
}

/**
 * Who is connected where. Entries expire after `ttlMs` unless refreshed, so the view is right
 * within one TTL after a gateway dies without saying goodbye.
 */
export interface PresenceStore {
  /** The newest connection of an agent wins: it replaces any older entry. */
  connect(entry: PresenceEntry, ttlMs: number, now: number): Promise<void>;
  /**
   * Refreshes entries and their last activity, each only while its `sessionId` is still the
   * agent's current one; the expiry of all of them becomes `now + ttlMs`. A gateway gathers the
   * refreshes of its agents and sends them together: with tens of thousands of agents, one
   * script call per pong was a steady stream of Redis calls in front of the hooks. Resolves with
   * how many entries were refreshed.
   */
  touch(touches: readonly PresenceTouch[], ttlMs: number, now: number): Promise<number>;
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

/**
 * Agent sessions: an id the SDK presents again after a reconnect. A session belongs to one agent;
 * it expires `ttlMs` after its last use. Resuming and creating are two calls so that a caller can
 * count a new session against a limit between them, before anything is written for it
 * (`SessionOpener` in the gateway).
 */
export interface SessionStore {
  /**
   * Resumes `sessionId` when it exists and is the agent's (its TTL restarts): `resumed`;
   * `foreign` when it is another agent's, `missing` when it does not exist (unknown or expired) —
   * both write nothing.
   */
  resume(agentId: string, sessionId: string, now: number, ttlMs: number): Promise<'resumed' | 'foreign' | 'missing'>;
  /**
   * Creates `sessionId` for the agent: `created`; `resumed` when it is the agent's already (a
   * concurrent call created it first; its TTL restarts), `foreign` when it is another agent's
   * (nothing changed).
   */
  create(agentId: string, sessionId: string, now: number, ttlMs: number): Promise<'created' | 'resumed' | 'foreign'>;
}

/**
 * The BullMQ queue of hook evaluations. The job id is the hook id, so enqueuing a hook that is
 * already queued or running is a no-op. Job data carries no secret.
 */
/** How a hook job is queued. */
export interface EnqueueOptions {
  /**
   * BullMQ priority, 1 (first) … 2 097 151 (last). Without one, a job goes to the wait list,
   * which workers empty before they take any prioritized job: the gateway gives one only to the
   * hooks of a connection that already has more than its fair share in flight.
   */
  priority?: number;
  /**
   * When the job is queued (epoch ms): its BullMQ timestamp, which the worker reports as the
   * drill-down's `enqueued_at`. The gateway passes the instant its receive span ends, so the two
   * agree. @defaultValue now
   */
  enqueuedAt?: number;
}

export interface HookQueue {
  enqueue(job: HookJobData, options?: EnqueueOptions): Promise<void>;
  /** Jobs waiting, running, delayed and failed, for health and benchmarks. */
  counts(): Promise<{ waiting: number; active: number; delayed: number; failed: number }>;
  close(): Promise<void>;
}

// --- hooks configuration, rule counters (issue: rule engine) ---------------------------------

/**
 * Versions of the hooks configuration.
 *
 * Guarantees: versions are 1, 2, 3… without gaps, assigned atomically; `publish` stores the
 * version and makes it current in one step, then notifies; `watch` calls back with every new
 * current version at least once (pub/sub for speed, plus a periodic re-read of the current
 * version because pub/sub is best-effort).
 */
export interface ConfigStore {
  publish(input: { source: string; config: unknown; publishedBy: string; now: number }): Promise<{ version: number; unchanged: boolean }>;
  /** The current version (the protocol's `StoredConfigVersion`: `config` is the validated form), or null before the first publish. */
  current(): Promise<StoredConfigVersion | null>;
  get(version: number): Promise<StoredConfigVersion | null>;
  /** Newest first, without `source` and `config`. */
  history(limit: number): Promise<ConfigVersionSummary[]>;
  watch(onVersion: (version: number) => void, options?: { recheckMs?: number }): Promise<{ stop(): Promise<void> }>;
}

// --- requests and inboxes (issue: request/response protocols, teams) -------------------------



/** What `RequestStore.decide` / `cancel` did. Every outcome but `applied` changed nothing. */
export type DecideRequestOutcome =
  | { outcome: 'applied'; state: ProtocolState }
  /** The same decision again: acknowledged, nothing changed (idempotent). */
  | { outcome: 'already_decided'; state: ProtocolState }
  /** A contrary decision after the request was decided: refused; `state.decided_by` says who won. */
  | { outcome: 'conflict'; state: ProtocolState }
  /** The response type does not fit the request (docs/spec/teams.md#matching-responses: a shutdown only accepts shutdown_response). */
  | { outcome: 'type_mismatch'; state: ProtocolState; expected: string }
  /** Expired or cancelled: nothing left to decide. */
  | { outcome: 'not_pending'; state: ProtocolState }
  | { outcome: 'not_found' };

/**
 * Requests (shutdown, plan approval, tool approval) and their state machine, docs/spec/teams.md#request-state-machine.
 *
 * Guarantees: every transition is atomic and decided by the protocol's pure transition functions
 * (compare-and-set on a revision; a lost race re-reads and re-applies), so of two concurrent
 * contrary decisions exactly one wins and the other gets `conflict` with the winner's state.
 * Every change is appended to the request's history and to the audit/log stream, and published
 * (written to Redis first, then notified) so the waiting side learns it on any gateway. Pending
 * requests survive process and Redis restarts (with AOF).
 */
export interface RequestStore {
  /** Stores a new pending request. The same request_id again from the same sender returns the stored one (`created: false`); from another sender it is refused. */
  create(state: ProtocolState, now: number): Promise<{ created: boolean; state: ProtocolState } | { outcome: 'conflict' }>;
  get(requestId: string): Promise<{ state: ProtocolState; history: RequestHistoryEntry[] } | null>;
  decide(requestId: string, response: ProtocolResponse, actor: RequestActor, now: number): Promise<DecideRequestOutcome>;
  cancel(requestId: string, actor: RequestActor, now: number): Promise<DecideRequestOutcome>;
  /**
   * Records in the request's history (event `prompt_fallback`, actor `system`, status unchanged)
   * and the audit stream that an agent's permission prompt that waited for this request stopped
   * waiting and answered without it; `feedback` says what it answered. Changes nothing else: the
   * request can still be decided, and the history shows that decision came after the fallback.
   * Returns false when the request does not exist.
   */
  recordPromptFallback(requestId: string, feedback: string, now: number): Promise<boolean>;
  /** Expires pending requests past their deadline and returns them; safe to run on every gateway at once. */
  expireDue(now: number, limit?: number): Promise<ProtocolState[]>;
  /** Newest first (`order: 'oldest'`: oldest first). `agent` matches sender or target; `team` matches either party's team. */
  list(filter: {
    status?: RequestStatus;
    type?: RequestType;
    agent?: string;
    team?: string;
    target?: 'operators' | string;
    order?: 'newest' | 'oldest';
    limit?: number;
  }): Promise<ProtocolState[]>;
  /** The agent's pending plan approval, if any: its tool calls are gated until it is decided. */
  pendingPlanApproval(agentId: string): Promise<ProtocolState | null>;
}

/** An inbox message with its position in the recipient's inbox. */
export interface InboxEntry {
  /** Opaque, increasing within one inbox (a stream id). */
  cursor: string;
  message: InboxMessage;
}

/**
 * Durable per-agent inboxes (docs/spec/teams.md#messages-and-inboxes).
 *
 * Guarantees: `send` appends to the recipient's inbox in Redis first, then notifies the gateway
 * that holds the recipient (if any); a message stays until the recipient acknowledges it, across
 * reconnects and restarts — delivery is at-least-once and the SDK deduplicates by message id.
 */
export interface InboxStore {
  send(message: InboxMessage, now: number): Promise<InboxEntry>;
  /** Unacknowledged messages after `afterCursor` (all of them when omitted), oldest first. */
  pending(agentId: string, afterCursor?: string, limit?: number): Promise<InboxEntry[]>;
  /** Removes acknowledged messages; unknown ids are ignored (idempotent). Returns how many were removed. */
  ack(agentId: string, messageIds: readonly string[]): Promise<number>;
}

/**
 * Counters behind progressive intervention and the server-side circuit breakers.
 *
 * Guarantees: atomic and idempotent per hook (a job evaluated twice after a stalled worker
 * counts once), correct with several workers evaluating the same agent concurrently, and
 * expiring after `ttlMs` without activity.
 */
export interface RuleCounterStore {
  /** Records that the agent violated `ruleKey` in this hook; returns the consecutive violations, this one included. */
  recordViolation(input: { agentId: string; ruleKey: string; hookId: string; ttlMs: number }): Promise<number>;
  /** A compliant attempt: the consecutive count starts again from zero. */
  recordCompliance(input: { agentId: string; ruleKey: string; hookId: string }): Promise<void>;
  /** Counts an identical tool call (same `signature`) of the agent, over all its sessions; returns the count, this one included. */
  countToolCall(input: { agentId: string; signature: string; hookId: string; ttlMs: number; rememberMs?: number }): Promise<number>;
  /** Records that the agent (in any of its sessions) reached loop iteration `iteration`; returns how many distinct iterations it has had. */
  countIteration(input: { agentId: string; iteration: number; ttlMs: number }): Promise<number>;
}
