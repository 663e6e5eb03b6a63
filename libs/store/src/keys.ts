/**
 * Every Redis key this library touches, built in one place from one prefix.
 *
 * Layout (prefix `ahp`):
 *
 * | key                               | type   | written by                          | expires                        |
 * |-----------------------------------|--------|-------------------------------------|--------------------------------|
 * | `ahp:hook:{<hookId>}`             | hash   | open-hook, decide-hook; the worker's hook-late (`late`: what it did with a hook the gateway's failure policy decided, only while it exists) | deadline + decision TTL, then decision TTL |
 * | `ahp:hook:{<hookId>}:detail`      | hash   | decide-hook (`detail` JSON, `received_at`, `decided_at`: the drill-down of a hook that sent signals), the gateway after delivery (`delivered_at`, `delivered_via`, only while it exists) | signal TTL (24 h) |
 * | `ahp:signal:{<signalId>}`         | hash   | decide-hook, respond-signal         | signal TTL (24 h)              |
 * | `ahp:signal-log`                  | stream | decide-hook, respond-signal         | MAXLEN ~ (100k entries)        |
 * | `ahp:replay-log:{replay-<i>}`     | stream | the oracle worker after each evaluation (XADD; PEXPIRE at most hourly per worker, pipelined; bucket i of 8 by hook id) | MAXLEN ~ (100k/8 entries per bucket), MINID ~ (7 days, on about one append in 16), bucket expires 7 days (+ up to 1 h) after its last append |
 * | `ahp:replay-cancel:{<replayId>}`  | string | the gateway (`DELETE /v1/operator/config/replay/:id`); read by the replay job | 24 h |
 * | `ahp:bull:config-replay:*` (`ahp:bull:{config-replay}:config-replay:*` under Cluster) | BullMQ | the replay queue (one job per replay) | completed and failed: 24 h |
 * | `ahp:gw:{<gatewayId>}:decisions`  | stream | decide-hook (route), inbox notices  | MAXLEN ~; decision TTL, refreshed by the running gateway |
 * | `ahp:gw:{<gatewayId>}:delivered:<minute>` | hash | the gateway after delivery (hooks-delivered: hook id → `<delivered_at>:<ws|http>` of each hook without signals whose decision was made in that minute, first delivery kept), one write per flush | decision TTL + 1 min after its last write |
 * | `ahp:presence:agent:{<agentId>}`  | hash   | presence scripts                    | presence TTL                   |
 * | `ahp:presence:agents`             | zset   | presence scripts (score = expiry)   | pruned by `list`               |
 * | `ahp:presence:gw:{<gatewayId>}`   | string | heartbeatGateway                    | gateway TTL                    |
 * | `ahp:presence:gateways`           | zset   | heartbeatGateway (score = expiry)   | pruned by `listGateways`       |
 * | `ahp:session:{<sessionId>}`       | hash   | session-open                        | session TTL after last use     |
 * | `ahp:bull:hooks:*`                | BullMQ | the hook queue                      | BullMQ's own                   |
 * | `ahp:request:{<requestId>}`       | hash   | cas-request (state JSON, rev, teams, request_message_id; under Cluster also `followups`, the follow-ups a transition still owes) | request retention after it settles; never while pending |
 * | `ahp:request:{<requestId>}:history` | list | cas-request, record-refusal         | as its request                 |
 * | `ahp:requests:all`, `…:status:<s>`, `…:agent:{<agentId>}`, `…:team:{<team>}`, `…:target:operators`, `…:target:agent:{<agentId>}` | zset | cas-request (score = created ms) | members purged by `expireDue` after retention |
 * | `ahp:requests:pending-sender:{<agentId>}` | zset | cas-request (score = created ms; its size is the per-sender cap's count, checked in the same script); under Cluster reserve-pending first | members removed when settled; under Cluster a reservation older than 60 s without its request is dropped by a sender at the cap |
 * | `ahp:requests:deadlines`          | zset   | cas-request (score = deadline ms)   | members removed when settled   |
 * | `ahp:requests:retention`          | zset   | cas-request (score = purge time)    | members removed by the purge   |
 * | `ahp:requests:events`             | stream | cas-request, record-refusal         | MAXLEN ~ (100k entries)        |
 * | `ahp:requests:followups`          | zset   | under Cluster: a transition before cas-request-core (score = its time), removed once its follow-ups ran | swept by `expireDue` |
 * | `ahp:plan-gate:{<agentId>}`       | set    | cas-request (pending plan approvals of the agent) | emptied when they settle |
 * | `ahp:plan-gate:{<agentId>}:verdict` | hash | cas-request (`status` approved/rejected/expired, `request_id`, `at` of the agent's last settled plan) | never: a rejection must outlast any TTL (one small hash per agent that ever submitted a plan) |
 * | `ahp:unanswered:{<agentId>}`      | zset   | decide-hook (block/control signal id, score = when its answer grace ends), respond-signal (removes it); per agent, so a new session inherits the hold | signal TTL after the last signal |
 * | `ahp:cc-answers:{<sessionId>}`   | string | the gateway after a Claude Code PreToolUse with block/control signals (JSON list); taken (GETDEL) by the session's next hook | signal TTL |
 * | `ahp:operator-signals:{<agentId>}` | zset  | operator signal store (signal id, score = delivery deadline ms): operators' signals and late aid of `post-*` hooks; removed when answered or past it | the longest deadline |
 * | `ahp:late-aid:{<hookId>}`         | string | operator signal store (`sendHookAid`): the hook's late aid was sent, so a re-run sends none | the aid's delivery deadline |
 * | `ahp:inbox:{<agentId>}`           | stream | inbox-send, cas-request, inbox-ack  | never; entries removed on ack  |
 * | `ahp:inbox:{<agentId>}:ids`       | hash   | as its inbox (message id → entry id) | never; fields removed on ack  |
 * | `ahp:inbox:{<agentId>}:sent:<messageId>` | hash | inbox-send (entry id, message JSON) | send dedup window (24 h), also after ack |
 * | `ahp:inbox:{<agentId>}:unreadable` | stream | inbox-set-aside: an inbox entry that does not parse, moved out of delivery (`entry`, `why`, its stored fields as `stored:<name>`) | MAXLEN ~ (100 entries); 7 days after the last one |
 * | `ahp:ratelimit:{<kind>:<subject>}` | string | rate-limit (theoretical arrival time, µs) | when the bucket is full again |
 * | `ahp:audit`                       | stream | the gateway's audit service (operator actions) | MAXLEN ~ (100k entries) |
 * | `ahp:config:{hooks}:meta`         | hash   | publish-config (seq, current, digest) | never                        |
 * | `ahp:config:{hooks}:versions`     | hash   | publish-config (version → JSON)     | never (versions are kept)      |
 * | `ahp:config:{hooks}:published`    | pub/sub channel | publish-config (the new version) | —                        |
 * | `ahp:config:{hooks}:queue-shards` | string | the first gateway or worker (SET NX: the hook queue's shard count K) | never |
 * | `ahp:config:{hooks}:shadow-meta`, `…:shadows`, `…:shadow-changed`, `…:shadow:<n>:stats`, `…:shadow:<n>:examples` | hash, hash, pub/sub, hash, list | the shadow configuration and its disagreement counters (shadow-config-store.ts, which names them) | stats and examples 7 days after the shadow ends; the rest never |
 * | `ahp:shadow-<n>:rule:{<agentId>}:…`, `ahp:shadow-<n>:breaker:{<agentId>}:…` | as the live ones | a shadow's own escalation and breaker counters (the worker's rule-counter store under the prefix `ahp:shadow-<n>`) | as the live ones |
 * | `ahp:bull:{hooks-<i>-<n>}:hooks:*` | BullMQ | hook queue shard i of K (when K > 1 or under Cluster; hook-queue-shards.ts) | BullMQ's own |
 * | `ahp:rule:{<agentId>}:<ruleKey>`  | hash   | rule-counter scripts                | the rule's TTL after last use  |
 * | `ahp:breaker:{<agentId>}:calls`   | hash   | count-tool-call (per agent, over all its sessions: a new session does not reset a breaker) | the breaker TTL after last use |
 * | `ahp:breaker:{<agentId>}:call:<hookId>` | string | count-tool-call (the count a hook got) | the hook's deadline |
 * | `ahp:breaker:{<agentId>}:iterations` | set  | count-iteration (per agent)         | the breaker TTL after last use |
 * | `ahp:tool-approvals:{<sessionId>}:calls` | hash | index-tool-approval (call digest → request id of the latest approval a rule opened) | approval deadline + 24 h after the last one |
 * | `ahp:request:{<requestId>}` field `consumed_by` | hash field | consume-tool-approval (the hook that used a settled tool approval) | as its request |
 * | `ahp:request:{<requestId>}` field `grant_revoked` | hash field | grant-revoke (the revoked grant recorded from this approval; consume-tool-approval refuses it from then on) | as its request |
 * | `ahp:grant:{<grantId>}`           | hash   | grant-create, grant-use, grant-revoke (`grant` JSON, `expires_ms`, `ttl_ms`, `uses`) | at `expires_ms` (session TTL after its last use) |
 * | `ahp:grants:session:{<sessionId>}` | set   | grant-create (grant ids of a session) | with its last grant           |
 * | `ahp:grants:all`                  | zset   | grant-create, grant-use (score = expiry ms) | pruned by `list`        |
 * | `ahp:fleet:agent:{<agentId>}`     | hash   | fleet-update (the agent's fleet row) | fleet retention (7 days) after last seen |
 * | `ahp:fleet:agents`                | zset   | fleet-update (score = last seen ms) | pruned by `list` after retention |
 * | `ahp:live`                        | stream | gateways (fleet rows, timeline events for the operators' live feed) | MAXLEN ~ (10k entries) |
 * | `ahp:worker:{<workerId>}`         | string | heartbeatWorker (WorkerInfo JSON)   | worker TTL                     |
 * | `ahp:workers`                     | zset   | heartbeatWorker (score = expiry)    | pruned by `listWorkers`        |
 * | `ahp:gw-health:{<gatewayId>}`     | string | gateway health (latency histogram, hooks in flight) | gateway TTL    |
 * | `ahp:requests:events` group `notifications` | stream consumer group | the workers' notification dispatcher (which `created` events it has routed) | with the stream |
 * | `ahp:bull:notifications:*` (`ahp:bull:{notifications}:notifications:*` under Cluster) | BullMQ | the notification queue (one job per request and channel) | completed: 24 h; failed: 7 days |
 * | `ahp:notify:delivery:{<deliveryId>}` | hash | notification store (`meta` JSON, `status`) | 7 days |
 * | `ahp:notify:delivery:{<deliveryId>}:attempts` | list | notification store (one JSON per attempt) | 7 days |
 * | `ahp:notify:deliveries`           | zset   | notification store (delivery ids, score = created ms) | trimmed to the newest 1000 |
 * | `ahp:notify:dead`                 | list   | notification store (dead letters, newest first) | trimmed to 1000 entries |
 * | `ahp:redaction-key`               | string | hook queue: the key of the redaction markers' HMAC, by the first gateway (SET NX of 32 random bytes) unless `AHP_REDACTION_KEY` is set | never |
 * | `ahp:notify:link-secret`          | string | decision links: the first gateway or worker (SET NX of 32 random bytes) unless `AHP_LINK_SECRET` is set | never |
 * | `ahp:notify:link-used:{<jti>}`    | string | decision links: a link redeemed (SET NX: JSON of the operator and time) | when the link would have expired |
 * | `ahp:notify:agent:{<agentId>}:<window start ms>` | hash | notification throttle (`notify-admit`: request id → its place among the agent's requests to operators of that window; `#n` places given) | window length + 24 h |
 * | `ahp:notify:vapid`                | string | Web Push: the VAPID key pair (JSON), by the first gateway or worker (SET NX) | never |
 * | `ahp:notify:push:{<operatorId>}`  | hash   | Web Push: the operator's subscriptions (SHA-256 of the endpoint → JSON) | never; a subscription the push service calls gone is removed |
 *
 * Hash tags (`{…}`) name the Redis Cluster slot of a key. Every per-entity key is tagged by its
 * own id, so single-key scripts (open-hook-core, session-open, inbox-send, inbox-ack, rate-limit,
 * the rule-counter and breaker scripts, on the agent's tag, consume- and index-tool-approval) are
 * Cluster-safe as they are; so is enforcement-state (an operator's reset of the agent's unanswered
 * set, breakers, call marks and rule counters: all on the agent's tag, enforcement-store.ts); the configuration keys share the tag `{hooks}`, so publish-config is too.
 *
 * Scripts that touch several tags run as one step on a single Redis, and split under Cluster
 * (docs/deploy.md §8): a `-core` script decides on the entity's own tag (the hook, the signal, the
 * agent's presence entry or fleet row, the request, the grant), then idempotent follow-ups update
 * indexes, logs and the other entities, and are run again by the next call that finds the decision
 * made. Both variants are built from the same Lua fragments (scripts/*.lua.ts):
 *
 * - decide-hook: hook hash, signal records, signal log, the owner's decision stream and the
 *   agent's unanswered set (names built from the hook hash) — decide-hook-core + follow-ups.
 * - respond-signal: signal record, signal log, unanswered set — respond-signal-core + follow-ups.
 * - open-hook: hook hash plus reads of the agent's plan gate, verdict, unanswered set and
 *   rate-limit bucket (all on the agent's tag) — the reads first, then open-hook-core.
 * - presence-connect / -touch / -disconnect, fleet-update: the entry or row, then the index.
 * - cas-request: request hash and history (one tag) decide and store the follow-ups they owe
 *   (indexes, deadline and retention sets, plan gate and verdict, inboxes, audit stream);
 *   record-refusal and purge-request likewise, request first.
 * - grant-create / grant-use: the grant, then its session's set and the grant index;
 *   grant-revoke: the request's mark, then the grant's compare-and-set.
 *
 * The BullMQ prefix carries a hash tag under Cluster (hook-queue-shards.ts), because BullMQ's own
 * scripts touch all keys of a queue at once.
 */
import { createHash } from 'node:crypto';
import { StoreInputError } from './errors.js';

/** Default prefix of every key. */
export const DEFAULT_KEY_PREFIX = 'ahp';

/** Name of the BullMQ queue of hook evaluations. */
export const HOOK_QUEUE_NAME = 'hooks';

/** Options of {@link createKeys}. */
export interface KeysOptions {
  /**
   * Prefix of every key; tests isolate themselves with a unique one. A trailing `:` is dropped,
   * so `uniqueKeyPrefix()` output can be passed as it is.
   * @defaultValue {@link DEFAULT_KEY_PREFIX}
   */
  prefix?: string;
  /**
   * BullMQ's `prefix` option. Under Redis Cluster give it a hash tag, e.g. `{ahp:bull}`.
   * @defaultValue `<prefix>:bull`
   */
  bullPrefix?: string;
}

/** The key names of one deployment (one prefix). */
export interface StoreKeys {
  readonly prefix: string;
  /** BullMQ's `prefix` option for the hook queue. */
  readonly bullPrefix: string;
  /** BullMQ queue name of hook evaluations. */
  readonly queueName: string;
  /** Stream of every signal sent and every response recorded. */
  readonly signalLog: string;
  /** Bucket `bucket` (0-based) of the replay log: streams of decided hooks with their redacted context (replay-log.ts). */
  replayLog(bucket: number): string;
  /** Set while the replay `replayId` is asked to stop; the job reads it between pages. */
  replayCancel(replayId: string): string;
  /** Index of agent presence entries, scored by expiry (epoch ms). */
  readonly presenceAgents: string;
  /** Index of gateway entries, scored by expiry (epoch ms). */
  readonly presenceGateways: string;
  hook(hookId: string): string;
  /** The drill-down record of a hook; same hash tag as {@link hook}, so decide-hook writes both in one step under Cluster too. */
  hookDetail(hookId: string): string;
  signal(signalId: string): string;
  /** Stream of decisions routed to one gateway; read by that gateway's DecisionFeed. */
  gatewayDecisions(gatewayId: string): string;
  /** Delivery times of the hooks without signals a gateway delivered, by the minute (epoch ms / 60,000) their decision was made in. */
  gatewayDeliveries(gatewayId: string, minute: number): string;
  presenceAgent(agentId: string): string;
  presenceGateway(gatewayId: string): string;
  session(sessionId: string): string;
  /** Hash of one request: `state` (ProtocolState JSON), `rev`, `teams`, `request_message_id`. */
  request(requestId: string): string;
  /** List of one request's history entries (JSON), oldest first. */
  requestHistory(requestId: string): string;
  /** Index of every request id, scored by creation time (epoch ms). */
  readonly requestsAll: string;
  /** Index of the requests in one status, scored by creation time. */
  requestsByStatus(status: string): string;
  /** Index of the requests an agent sent or must decide, scored by creation time. */
  requestsByAgent(agentId: string): string;
  /** Index of the pending requests an agent sent, scored by creation time: its size is what the per-sender cap counts. */
  requestsPendingBySender(agentId: string): string;
  /** Index of the requests whose sender or target belongs to a team, scored by creation time. */
  requestsByTeam(team: string): string;
  /** Index of the requests addressed to one agent, or to the operators, scored by creation time. */
  requestsByTarget(target: { kind: 'agent'; agent: string } | { kind: 'operators' }): string;
  /** Pending request ids scored by deadline (epoch ms), read by `expireDue`. */
  readonly requestDeadlines: string;
  /** Settled requests scored by the time their index entries are purged; members are JSON `[id, ...index keys]`. */
  readonly requestRetention: string;
  /** Audit stream of every request change and refused answer; the console tails it. */
  readonly requestEvents: string;
  /** Under Redis Cluster: ids of requests whose last transition's follow-ups may not have run, scored by its time (epoch ms); swept by `expireDue`. */
  readonly requestFollowUps: string;
  /** Set of the agent's pending plan approval ids: while it is non-empty, new pre-tool-use hooks are gated. */
  planGate(agentId: string): string;
  /** Hash of the agent's last settled plan approval (`status`, `request_id`, `at`): a rejection or expiry keeps the gate closed until an approval. */
  planVerdict(agentId: string): string;
  /**
   * Zset of the block/control signals an agent has not answered yet, scored by the end of their
   * answer grace (epoch ms). Per agent, not per session: a new session (a restart, a hello
   * without session_id) must not escape the hold.
   */
  unansweredSignals(agentId: string): string;
  /** String (JSON) of the block/control signals a Claude Code session's last PreToolUse received, until its next hook tells what Claude Code did with them. */
  claudeCodePendingAnswers(sessionId: string): string;
  /** Zset of the signals operators pushed to one agent that it has not answered, scored by the end of their delivery (epoch ms). */
  operatorSignals(agentId: string): string;
  /** Marks a `post-*` hook whose late aid was pushed (one delivery per hook). */
  lateAid(hookId: string): string;
  /** Stream of one agent's unacknowledged inbox messages. */
  inbox(agentId: string): string;
  /** Hash message id → stream entry id of one inbox, for O(1) acknowledgement by message id. */
  inboxIds(agentId: string): string;
  /** Stream of the entries moved out of one inbox because they do not parse (for an operator to inspect; never delivered). */
  inboxUnreadable(agentId: string): string;
  /** Hash `entry`, `message` of one sent message, kept for the send dedup window so a re-sent `send` is answered with it, also after it was acknowledged. */
  inboxSent(agentId: string, messageId: string): string;
  /** One rate-limit bucket (GCRA state) of a subject of one kind (`agent`, `operator`). */
  rateLimit(kind: string, subject: string): string;
  /** Stream of audited operator actions (decisions, configuration publishes), for `GET /v1/operator/audit`. */
  readonly audit: string;
  /** Hash: `seq` (last version assigned), `current` (the current version), `digest` (of the current text). */
  readonly configMeta: string;
  /** Hash: one field per published version (the number), holding its JSON. */
  readonly configVersions: string;
  /** Pub/sub channel on which publish-config announces a new current version. */
  readonly configChannel: string;
  /** String: the number of hook queue shards of this deployment, fixed by the first process that started (SET NX). */
  readonly hookQueueShardCount: string;
  /** Progressive-intervention counter of one agent and one rule. Any rule key is accepted: one that is not a plain id is replaced by its SHA-256. */
  ruleCounter(agentId: string, ruleKey: string): string;
  /** Identical-tool-call counts of one agent over all its sessions (circuit breaker: a restart must not reset it). */
  breakerCalls(agentId: string): string;
  /** Distinct loop iterations of one agent over all its sessions (circuit breaker). */
  breakerIterations(agentId: string): string;
  /** The identical-tool-call count one hook got (circuit breaker), so a re-evaluation counts once. */
  breakerCallMark(agentId: string, hookId: string): string;
  /** Hash of one session: call digest (agent, tool, input) → id of the latest tool approval a rule opened for it. */
  toolApprovalCalls(sessionId: string): string;
  /** Hash of one session grant: `grant` (JSON), `expires_ms`, `ttl_ms`. */
  grant(grantId: string): string;
  /** Set of the grant ids of one session. */
  sessionGrants(sessionId: string): string;
  /** Index of every grant id, scored by expiry (epoch ms). */
  readonly grantsAll: string;
  /** Fleet row of one agent (hash): identity, connection, last hook and decision. */
  fleetAgent(agentId: string): string;
  /** Index of fleet rows, scored by last seen (epoch ms). */
  readonly fleetAgents: string;
  /** Stream of operator live events written by gateways (fleet rows, timeline entries). */
  readonly liveEvents: string;
  /** WorkerInfo JSON of one live oracle worker. */
  workerInfo(workerId: string): string;
  /** Index of live workers, scored by expiry (epoch ms). */
  readonly workers: string;
  /** One gateway's health snapshot (JSON): decision latency histogram, hooks in flight. */
  gatewayHealth(gatewayId: string): string;
  /** Hash of one notification delivery: `meta` (JSON), `status`. */
  notificationDelivery(deliveryId: string): string;
  /** List of one delivery's attempts (JSON), oldest first; shares the delivery's hash tag. */
  notificationAttempts(deliveryId: string): string;
  /** Index of recent deliveries, scored by creation time (epoch ms). */
  readonly notificationDeliveries: string;
  /** List of dead letters (JSON), newest first. */
  readonly notificationDeadLetters: string;
  /** The decision links' signing secret (string, created once with SET NX when no variable sets it). */
  readonly decisionLinkSecret: string;
  /** The key of the redaction markers' HMAC in queued hook contexts (string, created once with SET NX when no variable sets it). */
  readonly redactionKey: string;
  /** A redeemed decision link (string: who used it and when), until the link would have expired. */
  decisionLinkUsed(jti: string): string;
  /** The Web Push VAPID key pair (JSON), created once with SET NX. */
  readonly vapidKeys: string;
  /** Hash of one operator's push subscriptions: SHA-256 of the endpoint → JSON. */
  pushSubscriptions(operatorId: string): string;
  /** Hash of one agent's requests to operators created in one throttle window and their places (notification-throttle.ts). */
  notificationWindow(agentId: string, windowStartMs: number): string;
}

/** What an id must look like to be part of a key: the protocol's IdSchema (UUIDs included). No braces, so no id can move a key to another hash tag. */
const KEY_PART = /^[A-Za-z0-9._:-]{1,128}$/;

function part(kind: string, id: string): string {
  if (!KEY_PART.test(id)) {
    throw new StoreInputError(`${kind} id ${JSON.stringify(id.slice(0, 140))} cannot be part of a key: 1-128 of letters, digits and . _ : -`);
  }
  return id;
}

/** A rule key as part of a key name: as it is when it is a plain id, its SHA-256 otherwise (rule keys are built by the rule engine and may hold anything). */
function rulePart(ruleKey: string): string {
  return KEY_PART.test(ruleKey) ? ruleKey : `sha256-${createHash('sha256').update(ruleKey).digest('hex')}`;
}

/**
 * Builds the key names for one prefix.
 *
 * @throws StoreInputError when the prefix is empty or holds braces or spaces (a brace would turn
 *   part of it into a hash tag); the key builders throw it for an id outside `[A-Za-z0-9._:-]`.
 */
export function createKeys(options: KeysOptions = {}): StoreKeys {
  const prefix = (options.prefix ?? DEFAULT_KEY_PREFIX).replace(/:+$/, '');
  if (!/^[^\s{}]+$/.test(prefix)) {
    throw new StoreInputError(`key prefix ${JSON.stringify(options.prefix)} must be non-empty, without spaces or braces`);
  }
  const bullPrefix = options.bullPrefix ?? `${prefix}:bull`;
  return Object.freeze({
    prefix,
    bullPrefix,
    queueName: HOOK_QUEUE_NAME,
    signalLog: `${prefix}:signal-log`,
    replayLog: (bucket: number) => {
      if (!Number.isSafeInteger(bucket) || bucket < 0) throw new StoreInputError(`replay log bucket must be a non-negative integer, got ${bucket}`);
      return `${prefix}:replay-log:{replay-${bucket}}`;
    },
    replayCancel: (replayId: string) => `${prefix}:replay-cancel:{${part('replay', replayId)}}`,
    presenceAgents: `${prefix}:presence:agents`,
    presenceGateways: `${prefix}:presence:gateways`,
    hook: (hookId: string) => `${prefix}:hook:{${part('hook', hookId)}}`,
    hookDetail: (hookId: string) => `${prefix}:hook:{${part('hook', hookId)}}:detail`,
    signal: (signalId: string) => `${prefix}:signal:{${part('signal', signalId)}}`,
    gatewayDecisions: (gatewayId: string) => `${prefix}:gw:{${part('gateway', gatewayId)}}:decisions`,
    gatewayDeliveries: (gatewayId: string, minute: number) => {
      if (!Number.isSafeInteger(minute) || minute < 0) throw new StoreInputError(`delivery minute must be a non-negative integer, got ${minute}`);
      return `${prefix}:gw:{${part('gateway', gatewayId)}}:delivered:${minute}`;
    },
    presenceAgent: (agentId: string) => `${prefix}:presence:agent:{${part('agent', agentId)}}`,
    presenceGateway: (gatewayId: string) => `${prefix}:presence:gw:{${part('gateway', gatewayId)}}`,
    session: (sessionId: string) => `${prefix}:session:{${part('session', sessionId)}}`,
    request: (requestId: string) => `${prefix}:request:{${part('request', requestId)}}`,
    requestHistory: (requestId: string) => `${prefix}:request:{${part('request', requestId)}}:history`,
    requestsAll: `${prefix}:requests:all`,
    requestsByStatus: (status: string) => `${prefix}:requests:status:${part('status', status)}`,
    requestsByAgent: (agentId: string) => `${prefix}:requests:agent:{${part('agent', agentId)}}`,
    requestsPendingBySender: (agentId: string) => `${prefix}:requests:pending-sender:{${part('agent', agentId)}}`,
    requestsByTeam: (team: string) => `${prefix}:requests:team:{${part('team', team)}}`,
    requestsByTarget: (target: { kind: 'agent'; agent: string } | { kind: 'operators' }) =>
      target.kind === 'operators' ? `${prefix}:requests:target:operators` : `${prefix}:requests:target:agent:{${part('agent', target.agent)}}`,
    requestDeadlines: `${prefix}:requests:deadlines`,
    requestRetention: `${prefix}:requests:retention`,
    requestEvents: `${prefix}:requests:events`,
    requestFollowUps: `${prefix}:requests:followups`,
    planGate: (agentId: string) => `${prefix}:plan-gate:{${part('agent', agentId)}}`,
    planVerdict: (agentId: string) => `${prefix}:plan-gate:{${part('agent', agentId)}}:verdict`,
    unansweredSignals: (agentId: string) => `${prefix}:unanswered:{${part('agent', agentId)}}`,
    claudeCodePendingAnswers: (sessionId: string) => `${prefix}:cc-answers:{${part('session', sessionId)}}`,
    operatorSignals: (agentId: string) => `${prefix}:operator-signals:{${part('agent', agentId)}}`,
    lateAid: (hookId: string) => `${prefix}:late-aid:{${part('hook', hookId)}}`,
    inbox: (agentId: string) => `${prefix}:inbox:{${part('agent', agentId)}}`,
    inboxIds: (agentId: string) => `${prefix}:inbox:{${part('agent', agentId)}}:ids`,
    inboxUnreadable: (agentId: string) => `${prefix}:inbox:{${part('agent', agentId)}}:unreadable`,
    inboxSent: (agentId: string, messageId: string) => `${prefix}:inbox:{${part('agent', agentId)}}:sent:${part('message', messageId)}`,
    rateLimit: (kind: string, subject: string) => `${prefix}:ratelimit:{${part('rate-limit kind', kind)}:${part('rate-limit subject', subject)}}`,
    audit: `${prefix}:audit`,
    configMeta: `${prefix}:config:{hooks}:meta`,
    configVersions: `${prefix}:config:{hooks}:versions`,
    configChannel: `${prefix}:config:{hooks}:published`,
    hookQueueShardCount: `${prefix}:config:{hooks}:queue-shards`,
    ruleCounter: (agentId: string, ruleKey: string) => `${prefix}:rule:{${part('agent', agentId)}}:${rulePart(ruleKey)}`,
    breakerCalls: (agentId: string) => `${prefix}:breaker:{${part('agent', agentId)}}:calls`,
    breakerIterations: (agentId: string) => `${prefix}:breaker:{${part('agent', agentId)}}:iterations`,
    breakerCallMark: (agentId: string, hookId: string) => `${prefix}:breaker:{${part('agent', agentId)}}:call:${part('hook', hookId)}`,
    toolApprovalCalls: (sessionId: string) => `${prefix}:tool-approvals:{${part('session', sessionId)}}:calls`,
    grant: (grantId: string) => `${prefix}:grant:{${part('grant', grantId)}}`,
    sessionGrants: (sessionId: string) => `${prefix}:grants:session:{${part('session', sessionId)}}`,
    grantsAll: `${prefix}:grants:all`,
    fleetAgent: (agentId: string) => `${prefix}:fleet:agent:{${part('agent', agentId)}}`,
    fleetAgents: `${prefix}:fleet:agents`,
    liveEvents: `${prefix}:live`,
    workerInfo: (workerId: string) => `${prefix}:worker:{${part('worker', workerId)}}`,
    workers: `${prefix}:workers`,
    gatewayHealth: (gatewayId: string) => `${prefix}:gw-health:{${part('gateway', gatewayId)}}`,
    notificationDelivery: (deliveryId: string) => `${prefix}:notify:delivery:{${part('delivery', deliveryId)}}`,
    notificationAttempts: (deliveryId: string) => `${prefix}:notify:delivery:{${part('delivery', deliveryId)}}:attempts`,
    notificationDeliveries: `${prefix}:notify:deliveries`,
    notificationDeadLetters: `${prefix}:notify:dead`,
    decisionLinkSecret: `${prefix}:notify:link-secret`,
    redactionKey: `${prefix}:redaction-key`,
    decisionLinkUsed: (jti: string) => `${prefix}:notify:link-used:{${part('link', jti)}}`,
    vapidKeys: `${prefix}:notify:vapid`,
    pushSubscriptions: (operatorId: string) => `${prefix}:notify:push:{${part('operator', operatorId)}}`,
    notificationWindow: (agentId: string, windowStartMs: number) => `${prefix}:notify:agent:{${part('agent', agentId)}}:${windowStartMs}`,
  });
}
