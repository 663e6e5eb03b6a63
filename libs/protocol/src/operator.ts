/**
 * The operator API (`/v1/operator` on every gateway): who operators are, how their tokens are
 * kept, and the bodies the API accepts and returns. The ops console and scripts parse responses
 * with these schemas; the gateway parses requests with them.
 *
 * Operators are people (or their scripts), not agents: they authenticate with bearer tokens of
 * their own, listed by SHA-256 digest in the operator tokens file, and act within their role:
 * - `viewer`: reads requests, agents and timelines;
 * - `approver`: also decides requests addressed to operators;
 * - `admin`: also decides requests addressed to an agent (an override, e.g. for a stuck lead).
 */
import { z } from 'zod';
import { Sha256HexSchema } from './agent.js';
import { ConfigVersionNumberSchema, ConfigVersionSummarySchema } from './config-version.js';
import { AhpErrorSchema } from './errors.js';
import { AgentEventSchema } from './client-frames.js';
import { GatewayInfoSchema, PresenceEntrySchema } from './hook-job.js';
import { IdSchema, JsonObjectSchema, ShortStringSchema, TextSchema, TimestampSchema, boundedArray } from './primitives.js';
import { IntensitySchema } from './intensity.js';
import { ProtocolStateSchema, RequestStatusSchema, RequestTypeSchema, type RequestType } from './request.js';
import { SignalLogLineSchema } from './signal-log-export.js';
import { ApprovalScopeSchema, ToolGrantSchema } from './tool-approval.js';
import { HookTriggerSchema } from './trigger.js';

// --- identities and tokens ---------------------------------------------------------------------

export const OPERATOR_ROLES = ['viewer', 'approver', 'admin'] as const;

/** What an operator may do; each role includes the ones before it (see the module comment). */
export const OperatorRoleSchema = z.enum(OPERATOR_ROLES).meta({ id: 'OperatorRole', description: 'viewer | approver | admin.' });
export type OperatorRole = z.infer<typeof OperatorRoleSchema>;

/** Whether `role` includes the rights of `needed` (viewer < approver < admin). */
export function roleAllows(role: OperatorRole, needed: OperatorRole): boolean {
  return OPERATOR_ROLES.indexOf(role) >= OPERATOR_ROLES.indexOf(needed);
}

/** Most teams one operator token may be scoped to. */
export const MAX_SCOPE_TEAMS = 100;

/**
 * What a scoped operator token is limited to. `teams`: the operator sees and acts on the agents of
 * these teams only (and on the requests, signals, grants and timelines of those agents); agents
 * without a team belong to no scope. `request_types`: of the requests it may see, the kinds it may
 * decide (plan approvals only, say); reading is not narrowed by it. A token without `scope` is
 * fleet-wide; only a fleet-wide admin may do what concerns the whole fleet (publish hooks.yaml, read
 * the audit trail). An empty list would be ambiguous, so each list, when present, names at least one.
 */
export const OperatorScopeSchema = z
  .strictObject({
    teams: boundedArray(IdSchema, MAX_SCOPE_TEAMS).min(1, 'name at least one team, or leave teams out').optional(),
    request_types: z.array(RequestTypeSchema).min(1, 'name at least one request type, or leave request_types out').max(4).optional(),
  })
  .refine((scope) => scope.teams !== undefined || scope.request_types !== undefined, 'a scope names teams, request types or both; leave it out for a fleet-wide token')
  .meta({ id: 'OperatorScope', description: 'The teams (and request types) a scoped operator token is limited to.' });
export type OperatorScope = z.infer<typeof OperatorScopeSchema>;

/** An authenticated operator: the id is what request histories record as the decider; `scope` absent means fleet-wide. */
export const OperatorIdentitySchema = z
  .strictObject({ id: IdSchema, name: ShortStringSchema, role: OperatorRoleSchema, scope: OperatorScopeSchema.optional() })
  .meta({ id: 'OperatorIdentity', description: 'An operator: id, display name, role, and the scope of a scoped token.' });
export type OperatorIdentity = z.infer<typeof OperatorIdentitySchema>;

/** Whether the operator's token is fleet-wide (no scope at all): what publishing hooks.yaml or reading the audit trail needs. */
export function isFleetWide(operator: Pick<OperatorIdentity, 'scope'>): boolean {
  return operator.scope === undefined;
}

/**
 * Whether the operator may see what belongs to `team` (an agent's team from its token; undefined
 * for an agent without a team or an unknown one). A team-scoped operator sees only its teams;
 * an unknown or team-less agent is outside every team scope (fail closed).
 */
export function scopeCoversTeam(operator: Pick<OperatorIdentity, 'scope'>, team: string | undefined): boolean {
  const teams = operator.scope?.teams;
  if (teams === undefined) return true;
  return team !== undefined && teams.includes(team);
}

/** Whether the operator's scope lets it decide requests of this type. */
export function scopeCoversRequestType(operator: Pick<OperatorIdentity, 'scope'>, type: RequestType): boolean {
  const types = operator.scope?.request_types;
  return types === undefined || types.includes(type);
}

/**
 * One entry of the operator tokens file. As for agents, only the token's SHA-256 is stored:
 * tokens are long random secrets, so the digest is useless to whoever reads the file.
 */
export const OperatorTokenEntrySchema = OperatorIdentitySchema.extend({
  token_sha256: Sha256HexSchema,
  /** A revoked entry stays for the record but authenticates nobody. */
  revoked: z.boolean().optional(),
}).meta({ id: 'OperatorTokenEntry' });
export type OperatorTokenEntry = z.infer<typeof OperatorTokenEntrySchema>;

/** The operator tokens file (`AHP_OPERATOR_TOKENS_FILE`): operator ids and token digests are unique. */
export const OperatorTokensFileSchema = z
  .strictObject({ operators: boundedArray(OperatorTokenEntrySchema, 10_000) })
  .superRefine((file, ctx) => {
    const ids = new Set<string>();
    const digests = new Set<string>();
    file.operators.forEach((entry, index) => {
      if (ids.has(entry.id)) {
        ctx.addIssue({ code: 'custom', path: ['operators', index, 'id'], message: `operator id "${entry.id}" appears twice` });
      }
      if (digests.has(entry.token_sha256)) {
        ctx.addIssue({ code: 'custom', path: ['operators', index, 'token_sha256'], message: 'two operators share one token' });
      }
      ids.add(entry.id);
      digests.add(entry.token_sha256);
    });
  })
  .meta({ id: 'OperatorTokensFile', description: 'Operator identities and roles with the SHA-256 of their bearer tokens.' });
export type OperatorTokensFile = z.infer<typeof OperatorTokensFileSchema>;

// --- request bodies and queries ----------------------------------------------------------------

/** The most requests one list call returns. */
export const MAX_LIST_LIMIT = 500;

/** A whole number from a query string, within `min..max`. */
export function queryInt(min: number, max: number, fallback: number) {
  return z
    .string()
    .regex(/^[0-9]{1,9}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.int().min(min).max(max))
    .default(fallback);
}

/**
 * Filters of `GET /v1/operator/requests`, as query parameters. `agent` matches the sender or
 * the target agent, `team` either party's team, `target` the addressee (`operators` or an agent
 * id), `order` newest (default) or oldest first. Unknown parameters are refused, so a typo never silently widens a listing.
 */
export const ListRequestsQuerySchema = z
  .strictObject({
    status: RequestStatusSchema.optional(),
    type: RequestTypeSchema.optional(),
    agent: IdSchema.optional(),
    team: IdSchema.optional(),
    target: IdSchema.optional(),
    /**
     * `newest` (the default) or `oldest` first. The console's approval queue reads the oldest
     * pending requests first, so the earliest opened (with equal deadlines, the first to expire)
     * are always among the listed, however many newer ones another agent opens.
     */
    order: z.enum(['newest', 'oldest']).optional(),
    /** @defaultValue 100 */
    limit: queryInt(1, MAX_LIST_LIMIT, 100),
  })
  .meta({ id: 'ListRequestsQuery', description: 'Request list filters: status, type, agent, team, target, order (newest or oldest first), limit.' });
export type ListRequestsQuery = z.infer<typeof ListRequestsQuerySchema>;

/** Query of `GET /v1/operator/agents/:agentId/timeline`: the newest `limit` events. */
export const TimelineQuerySchema = z
  .strictObject({
    /** @defaultValue 100 */
    limit: queryInt(1, MAX_LIST_LIMIT, 100),
  })
  .meta({ id: 'TimelineQuery', description: 'Timeline query: how many of the newest events.' });
export type TimelineQuery = z.infer<typeof TimelineQuerySchema>;

/**
 * Body of `POST /v1/operator/requests/:requestId/decision`. The response type is implied by the
 * request, so the body only says yes or no. `modified_input` is only for approving a tool
 * approval (the gateway checks the request type). `scope` (default `once`) widens an approval of a
 * tool approval to the rest of the session (see `ApprovalScopeSchema`); a rejection is always once.
 */
export const RequestDecisionBodySchema = z
  .strictObject({
    approve: z.boolean(),
    feedback: TextSchema.optional(),
    modified_input: JsonObjectSchema.optional(),
    scope: ApprovalScopeSchema.optional(),
  })
  .superRefine((body, ctx) => {
    if (body.modified_input !== undefined && !body.approve) {
      ctx.addIssue({ code: 'custom', path: ['modified_input'], message: 'a rejection cannot modify the input' });
    }
    if (body.scope !== undefined && body.scope !== 'once' && !body.approve) {
      ctx.addIssue({ code: 'custom', path: ['scope'], message: 'a rejection applies once; only an approval can cover the rest of the session' });
    }
  })
  .meta({ id: 'RequestDecisionBody', description: 'An operator decision: approve or reject, with feedback.' });
export type RequestDecisionBody = z.infer<typeof RequestDecisionBodySchema>;

// --- responses ---------------------------------------------------------------------------------

/** Who changed a request: an agent, an operator, or the control plane itself (expiry). */
export const RequestActorSchema = z
  .strictObject({ kind: z.enum(['agent', 'operator', 'system']), id: IdSchema })
  .meta({ id: 'RequestActor', description: 'Who acted on a request: agent, operator or system, with an id.' });
export type RequestActor = z.infer<typeof RequestActorSchema>;

/**
 * One line of a request's history: what happened (`created`, `approved`, `rejected`, `expired`,
 * `cancelled`, or `refused` for an answer that lost or did not fit), who did it, when, and the
 * status afterwards.
 */
export const RequestHistoryEntrySchema = z
  .strictObject({
    at: TimestampSchema,
    actor: RequestActorSchema,
    event: ShortStringSchema,
    status: RequestStatusSchema,
    feedback: TextSchema.optional(),
  })
  .meta({ id: 'RequestHistoryEntry', description: 'One change of a request: when, who, what, resulting status.' });
export type RequestHistoryEntry = z.infer<typeof RequestHistoryEntrySchema>;

/** `GET /v1/operator/requests`: newest first. */
export const RequestListResponseSchema = z
  .strictObject({ requests: boundedArray(ProtocolStateSchema, MAX_LIST_LIMIT) })
  .meta({ id: 'RequestListResponse' });
export type RequestListResponse = z.infer<typeof RequestListResponseSchema>;

/** `GET /v1/operator/requests/:requestId`: the state and its history, oldest first. */
export const RequestDetailResponseSchema = z
  .strictObject({ request: ProtocolStateSchema, history: z.array(RequestHistoryEntrySchema) })
  .meta({ id: 'RequestDetailResponse' });
export type RequestDetailResponse = z.infer<typeof RequestDetailResponseSchema>;

/**
 * `POST …/decision` succeeded: `applied` when this call decided, `already_decided` when the same
 * decision had been made before (idempotent; `request.decided_by` says by whom).
 */
export const RequestDecisionResponseSchema = z
  .strictObject({
    outcome: z.enum(['applied', 'already_decided']),
    request: ProtocolStateSchema,
    /** The session grant an approval with a `scope` wider than `once` recorded. */
    grant: ToolGrantSchema.optional(),
    /**
     * Set when an agent's permission prompt that waited for this tool approval had already
     * answered without it (its fallback, at this time): the decision did not reach that prompt;
     * it applies to a retry of the identical call.
     */
    after_prompt_fallback: TimestampSchema.optional(),
  })
  .meta({ id: 'RequestDecisionResponse' });
export type RequestDecisionResponse = z.infer<typeof RequestDecisionResponseSchema>;

/** `GET /v1/operator/agents`: connected agents and live gateways. */
export const AgentListResponseSchema = z
  .strictObject({ agents: z.array(PresenceEntrySchema), gateways: z.array(GatewayInfoSchema) })
  .meta({ id: 'AgentListResponse' });
export type AgentListResponse = z.infer<typeof AgentListResponseSchema>;

/**
 * Who reported a `team_activity` event and whether its names can be trusted, set by the gateway
 * (never by the agent) when it records the event. `sender` is the agent of the token that sent it,
 * with its name and team in the tokens file at that time. `names` is `verified` when every name the
 * event gives is one the gateway knows for the sender — `team_name` its team, `teammate_name` the
 * sender or an agent of its team in the tokens file (by id or name; `teammate` is then that agent)
 * — and `claimed` otherwise: the agent's own words, which the console shows as reported by the
 * sender, never as who acted. An entry without it (recorded before the gateway set it) is a claim.
 */
export const TeamActivityAttributionSchema = z
  .strictObject({
    sender: z.strictObject({ id: IdSchema, name: ShortStringSchema, team: IdSchema.optional() }),
    names: z.enum(['verified', 'claimed']),
    teammate: z.strictObject({ id: IdSchema, name: ShortStringSchema }).optional(),
  })
  .meta({ id: 'TeamActivityAttribution', description: "Who sent a team_activity event, and whether its team and teammate names are the sender's own." });
export type TeamActivityAttribution = z.infer<typeof TeamActivityAttributionSchema>;

/** One recorded agent event: what the agent reported with an `event` frame, and when the gateway got it. */
export const TimelineEntrySchema = z
  .strictObject({
    /** Opaque, increasing within one agent's timeline. */
    id: ShortStringSchema,
    agent_id: IdSchema,
    session_id: IdSchema.optional(),
    recorded_at: TimestampSchema,
    event: AgentEventSchema,
    /** On `team_activity` entries: who sent it and whether its names are verified (TeamActivityAttribution). */
    attribution: TeamActivityAttributionSchema.optional(),
  })
  .meta({ id: 'TimelineEntry', description: "An event of an agent's timeline." });
export type TimelineEntry = z.infer<typeof TimelineEntrySchema>;

/** `GET /v1/operator/agents/:agentId/timeline`: newest first. */
export const TimelineResponseSchema = z
  .strictObject({ events: boundedArray(TimelineEntrySchema, MAX_LIST_LIMIT) })
  .meta({ id: 'TimelineResponse' });
export type TimelineResponse = z.infer<typeof TimelineResponseSchema>;

// --- an agent's enforcement state -------------------------------------------------------------

/**
 * The parts of an agent's enforcement state an operator can lift (docs/hooks.md, "Lifting an
 * agent's enforcement state"). `breakers`: the circuit breakers' per-agent counts (identical tool
 * calls for `E_STUTTERING`, loop iterations for `MAX_ITER`); `hold`: the block/control signals the
 * agent has not answered, which refuse its new hooks once their answer grace ends; `escalation`: the
 * progressive-intervention counters of its rules (consecutive violations).
 */
export const ENFORCEMENT_PARTS = ['breakers', 'hold', 'escalation'] as const;
export const EnforcementPartSchema = z.enum(ENFORCEMENT_PARTS).meta({ id: 'EnforcementPart', description: 'breakers | hold | escalation.' });
export type EnforcementPart = z.infer<typeof EnforcementPartSchema>;

/** Most signal ids and rule counters an enforcement state lists (the counts are always whole). */
export const MAX_ENFORCEMENT_LISTED = 50;

/**
 * What an agent's enforcement state holds, per part (a part is present when it was read). Counts
 * only, never what was counted: the breakers keep digests of tool calls, not the calls.
 */
export const EnforcementStateSchema = z
  .strictObject({
    breakers: z
      .strictObject({
        /** Distinct tool calls counted (agent, tool, input), and the most times one of them was made. */
        identical_calls: z.strictObject({ distinct: z.int().nonnegative(), highest: z.int().nonnegative() }),
        /** Distinct loop iterations counted. */
        iterations: z.int().nonnegative(),
      })
      .optional(),
    hold: z
      .strictObject({
        /** Block/control signals the agent has not answered. */
        unanswered: z.int().nonnegative(),
        /** Their ids, at most {@link MAX_ENFORCEMENT_LISTED}, the earliest answer deadline first. */
        signal_ids: boundedArray(IdSchema, MAX_ENFORCEMENT_LISTED),
      })
      .optional(),
    escalation: z
      .strictObject({
        /** Rules with a counter. */
        rules: z.int().nonnegative(),
        /** At most {@link MAX_ENFORCEMENT_LISTED}: the rule key (its SHA-256 when it is not a plain id) and its consecutive violations. */
        counters: boundedArray(z.strictObject({ rule: ShortStringSchema, violations: z.int().nonnegative() }), MAX_ENFORCEMENT_LISTED),
      })
      .optional(),
  })
  .meta({ id: 'EnforcementState', description: "An agent's breaker counts, unanswered block/control signals and rule escalation counters." });
export type EnforcementState = z.infer<typeof EnforcementStateSchema>;

/** `GET /v1/operator/agents/:agentId/enforcement`: every part, as it is now. */
export const EnforcementStateResponseSchema = z
  .strictObject({ agent_id: IdSchema, state: EnforcementStateSchema })
  .meta({ id: 'EnforcementStateResponse' });
export type EnforcementStateResponse = z.infer<typeof EnforcementStateResponseSchema>;

/** Body of `POST /v1/operator/agents/:agentId/enforcement/reset`: the parts to lift; absent means all three. */
export const EnforcementResetBodySchema = z
  .strictObject({
    parts: z
      .array(EnforcementPartSchema)
      .min(1, 'name at least one part, or leave parts out to reset all')
      .max(ENFORCEMENT_PARTS.length)
      .refine((parts) => new Set(parts).size === parts.length, 'a part is named twice')
      .optional(),
  })
  .meta({ id: 'EnforcementResetBody', description: 'Which parts of the enforcement state to reset: breakers, hold, escalation (all when absent).' });
export type EnforcementResetBody = z.infer<typeof EnforcementResetBodySchema>;

/** Answer of a reset: the parts reset, what they held just before (only those parts), whether any held something (`changed`), and when. */
export const EnforcementResetResponseSchema = z
  .strictObject({
    agent_id: IdSchema,
    parts: z.array(EnforcementPartSchema).min(1).max(ENFORCEMENT_PARTS.length),
    before: EnforcementStateSchema,
    changed: z.boolean(),
    reset_at: TimestampSchema,
  })
  .meta({ id: 'EnforcementResetResponse' });
export type EnforcementResetResponse = z.infer<typeof EnforcementResetResponseSchema>;

/** `GET /v1/operator/me`: who the token says the caller is. */
export const OperatorMeResponseSchema = z.strictObject({ operator: OperatorIdentitySchema }).meta({ id: 'OperatorMeResponse' });
export type OperatorMeResponse = z.infer<typeof OperatorMeResponseSchema>;

/** Every failed operator call answers with this body and an HTTP status that fits its code. */
export const OperatorErrorBodySchema = z.strictObject({ error: AhpErrorSchema }).meta({ id: 'OperatorErrorBody' });
export type OperatorErrorBody = z.infer<typeof OperatorErrorBodySchema>;

// --- hooks configuration versions --------------------------------------------------------------

/**
 * Largest hooks.yaml `POST /v1/operator/config` accepts, in UTF-8 bytes (413 above). Kept under
 * the gateway's 100 kB JSON body limit so the refusal names the configuration, not the body.
 */
export const MAX_CONFIG_SOURCE_BYTES = 64 * 1024;

/** Query of `GET /v1/operator/config/history`: the newest `limit` versions. */
export const ConfigHistoryQuerySchema = z
  .strictObject({
    /** @defaultValue 50 */
    limit: queryInt(1, MAX_LIST_LIMIT, 50),
  })
  .meta({ id: 'ConfigHistoryQuery', description: 'Config history query: how many of the newest versions.' });
export type ConfigHistoryQuery = z.infer<typeof ConfigHistoryQuerySchema>;

/** Body of `POST /v1/operator/config`: the hooks.yaml text to publish (its size is checked in bytes by the gateway). */
export const PublishConfigBodySchema = z
  .strictObject({
    source: z.string().min(1, 'must not be empty'),
    // A rollback republishes an earlier version's text as a new version; naming it lets the
    // gateway check the text is that version's and the audit trail say which one was restored.
    rollback_of: z.int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  })
  .meta({ id: 'PublishConfigBody', description: 'A hooks.yaml text to validate and publish; `rollback_of` when it is an earlier version\'s text restored.' });
export type PublishConfigBody = z.infer<typeof PublishConfigBodySchema>;

/**
 * A problem in a hooks configuration text, where it is: 1-based `line` and `column` (0 when
 * unknown), the field `path` (`hooks.pre-tool-use.oracles[0].rules[1].condition`) and what.
 */
export const HooksConfigIssueSchema = z
  .strictObject({
    line: z.int().min(0),
    column: z.int().min(0),
    path: z.string().max(1024),
    message: z.string().max(4096),
  })
  .meta({ id: 'HooksConfigIssue', description: 'A problem in a hooks.yaml: line, column, field path, message.' });
export type HooksConfigIssue = z.infer<typeof HooksConfigIssueSchema>;

/**
 * A lint warning of a valid hooks configuration (docs/hooks.md, "Lint warnings"): the issue's shape
 * plus its `kind` and `subject` (`<trigger>/<oracle>/<rule id>`, or the trigger for `never-denies`).
 * Warnings never refuse a configuration.
 */
export const HooksConfigWarningSchema = HooksConfigIssueSchema.extend({
  kind: z.enum(['never-denies', 'unknown-field', 'shadowed-rule']),
  subject: z.string().max(512),
})
  .strict()
  .meta({ id: 'HooksConfigWarning', description: 'A lint warning: never-denies, unknown-field or shadowed-rule, located like an issue.' });
export type HooksConfigWarning = z.infer<typeof HooksConfigWarningSchema>;

/** Answer of a publish: the version now current, whether the text equalled the current one (nothing new stored), and the lint warnings. */
export const PublishConfigResponseSchema = z
  .strictObject({ version: ConfigVersionNumberSchema, unchanged: z.boolean(), warnings: z.array(HooksConfigWarningSchema) })
  .meta({ id: 'PublishConfigResponse' });
export type PublishConfigResponse = z.infer<typeof PublishConfigResponseSchema>;

/**
 * Answer of `POST /v1/operator/config/validate` (always 200 for a text it could read): whether the
 * text would publish, its issues (at most 50) and, when valid, its lint warnings.
 */
export const ValidateConfigResponseSchema = z
  .strictObject({ valid: z.boolean(), issues: z.array(HooksConfigIssueSchema), warnings: z.array(HooksConfigWarningSchema) })
  .meta({ id: 'ValidateConfigResponse' });
export type ValidateConfigResponse = z.infer<typeof ValidateConfigResponseSchema>;

/** One published version with its text, as `GET /v1/operator/config[/:version]` answers. */
export const ConfigVersionDetailSchema = ConfigVersionSummarySchema.extend({ source: z.string() })
  .strict()
  .meta({ id: 'ConfigVersionDetail', description: 'A published hooks configuration version with its text.' });
export type ConfigVersionDetail = z.infer<typeof ConfigVersionDetailSchema>;

/** Answer of `GET /v1/operator/config/history`, newest first. */
export const ConfigHistoryResponseSchema = z
  .strictObject({ versions: z.array(ConfigVersionSummarySchema) })
  .meta({ id: 'ConfigHistoryResponse' });
export type ConfigHistoryResponse = z.infer<typeof ConfigHistoryResponseSchema>;

// --- the signal log ----------------------------------------------------------------------------

/** The most lines one signal-log listing or export returns. */
export const MAX_SIGNAL_LOG_LIMIT = 10_000;

const signalLogFilterFields = {
  /** Signals sent at or after this time. */
  since: TimestampSchema.optional(),
  /** Signals sent before this time (exclusive). */
  until: TimestampSchema.optional(),
  agent: IdSchema.optional(),
  session: IdSchema.optional(),
  hook: HookTriggerSchema.optional(),
  intensity: IntensitySchema.optional(),
  /** The oracle that sent the signal. */
  source: ShortStringSchema.optional(),
};

/**
 * Query of `GET /v1/operator/signals` and `/signals/export`: the filters of the store's export
 * plus `limit` (the oldest matching signals first). Unknown parameters are refused.
 */
export const SignalLogQuerySchema = z
  .strictObject({
    ...signalLogFilterFields,
    /** @defaultValue 1000 */
    limit: queryInt(1, MAX_SIGNAL_LOG_LIMIT, 1_000),
  })
  .meta({ id: 'SignalLogQuery', description: 'Signal-log filters: time range, agent, session, hook, intensity, oracle, limit.' });
export type SignalLogQuery = z.infer<typeof SignalLogQuerySchema>;

/** Query of `GET /v1/operator/signals/stats`: the same filters, no limit (statistics count every matching signal). */
export const SignalLogStatsQuerySchema = z
  .strictObject(signalLogFilterFields)
  .meta({ id: 'SignalLogStatsQuery', description: 'Signal-log statistics filters: time range, agent, session, hook, intensity, oracle.' });
export type SignalLogStatsQuery = z.infer<typeof SignalLogStatsQuerySchema>;

/** Answer of `GET /v1/operator/signals`: matching lines, oldest first; `truncated` when `limit` cut them short. */
export const SignalLogListResponseSchema = z
  .strictObject({ lines: z.array(SignalLogLineSchema), truncated: z.boolean() })
  .meta({ id: 'SignalLogListResponse' });
export type SignalLogListResponse = z.infer<typeof SignalLogListResponseSchema>;

// --- the audit trail ---------------------------------------------------------------------------

/**
 * What an operator did that changes something. `request.decide`: a decision on a request (also in
 * the request's own history); `config.publish`: a hooks configuration publish, refused ones
 * included; `config.validate`: a candidate configuration checked without publishing (its size and
 * SHA-256, whether it was valid and its issue count; never its text); `grant.revoke`: an approval grant withdrawn; `config.shadow`, `config.shadow.promote`,
 * `config.shadow.drop`: a shadow hooks configuration set, made live, or dropped;
 * `notification.replay`: a dead notification delivery queued again; `agent.enforcement.reset`: an
 * agent's breakers, hold or escalation counters lifted (the parts and their values before).
 */
export const AUDIT_ACTIONS = ['request.decide', 'config.publish', 'config.validate', 'grant.revoke', 'signal.send', 'config.shadow', 'config.shadow.promote', 'config.shadow.drop', 'notification.replay', 'agent.enforcement.reset'] as const;
export const AuditActionSchema = z
  .enum(AUDIT_ACTIONS)
  .meta({ id: 'AuditAction', description: 'request.decide | config.publish | config.validate | grant.revoke | signal.send | config.shadow | config.shadow.promote | config.shadow.drop | notification.replay | agent.enforcement.reset.' });
export type AuditAction = z.infer<typeof AuditActionSchema>;

/**
 * How the action ended: `applied` (it changed something), `unchanged` (allowed, but it was
 * already so: the same decision again, the same configuration text), `refused` (the API said no:
 * invalid, forbidden for this target, in conflict; `details.error_code` says why), `failed` (the
 * gateway could not complete it, e.g. Redis unavailable).
 */
export const AUDIT_OUTCOMES = ['applied', 'unchanged', 'refused', 'failed'] as const;
export const AuditOutcomeSchema = z.enum(AUDIT_OUTCOMES).meta({ id: 'AuditOutcome', description: 'applied | unchanged | refused | failed.' });
export type AuditOutcome = z.infer<typeof AuditOutcomeSchema>;

/** One audited operator action as it is appended: who (id and role at the time), what, on what, how it ended, when. */
export const AuditRecordSchema = z
  .strictObject({
    at: TimestampSchema,
    /** `scope`: the scope of the token the operator acted with; absent for a fleet-wide token. */
    operator: z.strictObject({ id: IdSchema, role: OperatorRoleSchema, scope: OperatorScopeSchema.optional() }),
    action: AuditActionSchema,
    /** What the action was about: a request id, `hooks` for the configuration, a grant id. */
    target: ShortStringSchema,
    outcome: AuditOutcomeSchema,
    /** Small, action-specific facts: `approve`, `version`, `error_code`, `issue_count`, … Never secrets. */
    details: JsonObjectSchema.optional(),
  })
  .meta({ id: 'AuditRecord', description: 'An operator action: who, what, target, outcome, when.' });
export type AuditRecord = z.infer<typeof AuditRecordSchema>;

/** An audit record as read back, with its id (opaque, increasing in time). */
export const AuditEntrySchema = AuditRecordSchema.extend({ id: ShortStringSchema })
  .strict()
  .meta({ id: 'AuditEntry', description: 'An audited operator action with its entry id.' });
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

/** Query of `GET /v1/operator/audit` (admins only): a time range, an operator, an action, and how many of the newest. Unknown parameters are refused. */
export const AuditQuerySchema = z
  .strictObject({
    /** Entries at or after this time. */
    since: TimestampSchema.optional(),
    /** Entries before this time (exclusive). */
    until: TimestampSchema.optional(),
    operator: IdSchema.optional(),
    action: AuditActionSchema.optional(),
    /** @defaultValue 100 */
    limit: queryInt(1, MAX_LIST_LIMIT, 100),
  })
  .meta({ id: 'AuditQuery', description: 'Audit trail filters: since, until, operator, action, limit.' });
export type AuditQuery = z.infer<typeof AuditQuerySchema>;

/** Answer of `GET /v1/operator/audit`: matching entries, newest first; `truncated` when `limit` cut them short. */
export const AuditListResponseSchema = z
  .strictObject({ entries: boundedArray(AuditEntrySchema, MAX_LIST_LIMIT), truncated: z.boolean() })
  .meta({ id: 'AuditListResponse' });
export type AuditListResponse = z.infer<typeof AuditListResponseSchema>;
