/**
 * `circuit-breaker`: the loop breakers of docs/spec/circuit-breakers.md#server-side-breakers, evaluated on the server from per-agent
 * counters, so an agent cannot escape them by restarting its own process: a restart brings a new
 * session, so counters kept per session would start again from zero.
 *
 * - `E_STUTTERING`: more than `max_identical_tool_calls` (50) identical tool calls of the agent
 *   (over all its sessions) block the call. Identical = same tool name and same input (see
 *   {@link toolCallSignature}).
 * - `MAX_ITER`: more than `max_iterations` (20) distinct loop iterations block. The SDK puts the
 *   iteration number on its hooks as `context.loop.iteration` (a positive integer); the server
 *   counts the distinct numbers it has seen for the agent, so once a loop ran past the limit the
 *   agent's next session is blocked too.
 */
import { createHash } from 'node:crypto';
import { HOOK_TRIGGERS, HookDurationSchema, durationToMs, exceedsIterations, isIntensityAllowed, isStuttering } from '@ahp/protocol';
import type { JsonObject } from '@ahp/protocol';
import { z } from 'zod';
import { isPlainObject, member } from '../expression/values.js';
import type { Value } from '../expression/values.js';
import type { OracleVerdict } from '../oracle.js';
import { defineBuiltin } from './types.js';

/**
 * JSON text of `value` with the keys of every object sorted (by UTF-16 code units), no
 * whitespace: two inputs that differ only in key order have the same canonical text.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map((item: unknown) => canonicalJson(item)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The signature of a tool call: SHA-256 (lowercase hex) of the tool name, a newline, and the
 * canonical JSON of its input (`null` when it has none).
 */
export function toolCallSignature(toolName: string, input: unknown): string {
  return createHash('sha256').update(`${toolName}\n${canonicalJson(input)}`, 'utf8').digest('hex');
}

/** The loop iteration a hook reports (`context.loop.iteration`), when it is a positive safe integer. */
export function loopIteration(context: Value): number | undefined {
  const iteration = member(member(context, 'loop'), 'iteration');
  return typeof iteration === 'number' && Number.isSafeInteger(iteration) && iteration > 0 ? iteration : undefined;
}

/** Added to the time left to a hook's deadline when remembering its count: clocks of workers and gateways differ a little. */
const CLOCK_SLACK_MS = 60_000;

export const CircuitBreakerOptionsSchema = z.strictObject({
  /** Largest allowed number of identical tool calls of an agent (docs/spec/circuit-breakers.md#stuttering: > 50 stutters). */
  max_identical_tool_calls: z.int().positive().max(1_000_000).default(50),
  /** Largest allowed number of loop iterations of an agent (docs/spec/circuit-breakers.md#iteration-limit: > 20 stops). */
  max_iterations: z.int().positive().max(1_000_000).default(20),
  /** Counters expire this long after the agent's last counted hook. */
  ttl: HookDurationSchema.default('6h'),
  /** Turn the stuttering breaker off. */
  stuttering: z.boolean().default(true),
  /** Turn the iteration breaker off. */
  iterations: z.boolean().default(true),
});

export const circuitBreaker = defineBuiltin({
  name: 'circuit-breaker',
  summary: 'Loop breakers (docs/spec/circuit-breakers.md) from per-agent counters: identical tool calls > 50 → E_STUTTERING, iterations > 20 → MAX_ITER.',
  triggers: HOOK_TRIGGERS.filter((trigger) => isIntensityAllowed(trigger, 'block')),
  options: CircuitBreakerOptionsSchema,
  acceptsRules: false,
  create({ name, options }) {
    const ttlMs = durationToMs(options.ttl) ?? 6 * 3_600_000;
    const limits = { max_identical_tool_calls: options.max_identical_tool_calls, max_iterations: options.max_iterations };
    return {
      name,
      async evaluate(input, ctx) {
        const counters = ctx.counters;
        if (counters === undefined) throw new Error('circuit-breaker needs rule counters, and this evaluation has none');
        const verdicts: OracleVerdict[] = [];
        const context = input.context as Value;

        const iteration = options.iterations ? loopIteration(context) : undefined;
        if (iteration !== undefined) {
          const seen = await counters.countIteration({ agentId: input.agent.id, iteration, ttlMs });
          if (exceedsIterations(seen, limits)) {
            verdicts.push(breaker('MAX_ITER', {
              level: 'blocking',
              decision: 'deny',
              reason: `MAX_ITER: this agent has run ${seen} loop iterations (limit ${limits.max_iterations}); stop and ask a person to intervene.`,
              resolvable: false,
              resolution_path: ['End the turn with stop_reason MAX_ITER and ask the user to review the session.'],
            }, { code: 'MAX_ITER', iterations: seen, limit: limits.max_iterations, iteration }));
          }
        }

        const tool = member(context, 'tool');
        const toolName = member(tool, 'name');
        if (options.stuttering && input.trigger === 'pre-tool-use' && isPlainObject(tool) && typeof toolName === 'string') {
          const signature = toolCallSignature(toolName, member(tool, 'input'));
          // A re-evaluation (a stalled job run again) can only happen before the deadline.
          const rememberMs = ctx.deadlineAt === undefined ? undefined : Math.max(1, Math.ceil(ctx.deadlineAt - Date.now()) + CLOCK_SLACK_MS);
          const calls = await counters.countToolCall({ agentId: input.agent.id, signature, hookId: input.hookId, ttlMs, ...(rememberMs === undefined ? {} : { rememberMs }) });
          if (isStuttering(calls, limits)) {
            verdicts.push(breaker('E_STUTTERING', {
              level: 'blocking',
              decision: 'deny',
              reason: `E_STUTTERING: this exact ${toolName.slice(0, 128)} call has been made ${calls} times by this agent (limit ${limits.max_identical_tool_calls}); repeating it will not help.`,
              resolvable: true,
              resolution_path: ['Stop repeating this call: re-read the last results and change approach.'],
            }, { code: 'E_STUTTERING', calls, limit: limits.max_identical_tool_calls, signature }));
          }
        }
        return verdicts;
      },
    };
  },
});

function breaker(code: string, payload: OracleVerdict['payload'], details: JsonObject): OracleVerdict {
  return { intensity: 'block', type: 'circuit-breaker', rule: code, payload, details };
}
