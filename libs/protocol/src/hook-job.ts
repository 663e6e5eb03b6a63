/**
 * What the gateway stores in Redis for a hook: the BullMQ job a worker evaluates, and the
 * correlation record that routes the decision back to the gateway holding the agent's socket.
 * Both are read back from Redis and parsed with these schemas before anything acts on them.
 */
import { z } from 'zod';
import { AgentIdentitySchema } from './agent.js';
import { HookContextObjectSchema } from './hook-context-limits.js';
import { IdSchema, TimestampSchema, UuidSchema } from './primitives.js';
import { HookTriggerSchema } from './trigger.js';

/** Epoch milliseconds; used where Redis scripts compare times numerically. */
export const EpochMsSchema = z.int().nonnegative();

/**
 * The data of one hook job. It carries no secret (no token): job data is visible to anyone who
 * can read the queue. `deadline_at` is absolute so that every process agrees on it; a worker
 * that picks the job up after the deadline skips it, since the gateway's failure policy has
 * already answered. The context has the limits of the hook frame it came in (hook-context-limits.ts):
 * a context the gateway accepted is one the queue carries, the tool's text whole.
 */
export const HookJobDataSchema = z
  .strictObject({
    hook_id: UuidSchema,
    trigger: HookTriggerSchema,
    agent: AgentIdentitySchema,
    session_id: IdSchema,
    context: HookContextObjectSchema,
    enqueued_at: EpochMsSchema,
    deadline_at: EpochMsSchema,
  })
  .meta({ id: 'HookJobData', description: 'The BullMQ job data of one hook evaluation.' });
export type HookJobData = z.infer<typeof HookJobDataSchema>;

/** Where a hook stands: waiting for a decision, or decided (the decision is stored beside it). */
export const HookStatusSchema = z.enum(['pending', 'decided']);
export type HookStatus = z.infer<typeof HookStatusSchema>;

/**
 * The correlation of one hook: who asked, which gateway waits for the answer (`gateway_id`
 * changes when the agent re-sends the hook through another gateway after a reconnect), and
 * until when.
 */
export const HookCorrelationSchema = z
  .strictObject({
    hook_id: UuidSchema,
    agent_id: IdSchema,
    session_id: IdSchema,
    gateway_id: IdSchema,
    trigger: HookTriggerSchema,
    status: HookStatusSchema,
    created_at: EpochMsSchema,
    deadline_at: EpochMsSchema,
    decided_at: EpochMsSchema.optional(),
  })
  .meta({ id: 'HookCorrelation', description: 'Hook id → agent, session, waiting gateway, trigger, deadline.' });
export type HookCorrelation = z.infer<typeof HookCorrelationSchema>;

/** A connected agent as presence reports it; entries expire when their gateway stops refreshing them. */
export const PresenceEntrySchema = z
  .strictObject({
    agent: AgentIdentitySchema,
    session_id: IdSchema,
    gateway_id: IdSchema,
    connected_at: TimestampSchema,
    last_activity_at: TimestampSchema,
  })
  .meta({ id: 'PresenceEntry', description: 'A connected agent: which gateway, which session, since when.' });
export type PresenceEntry = z.infer<typeof PresenceEntrySchema>;

/** A live gateway instance, refreshed while it runs. */
export const GatewayInfoSchema = z
  .strictObject({
    gateway_id: IdSchema,
    started_at: TimestampSchema,
    last_seen_at: TimestampSchema,
    connections: z.int().nonnegative(),
    draining: z.boolean(),
  })
  .meta({ id: 'GatewayInfo', description: 'A live gateway instance and its connection count.' });
export type GatewayInfo = z.infer<typeof GatewayInfoSchema>;
