/**
 * Hook triggers: the points in an agent's run where it asks the control plane what to do. The
 * eight domain triggers and their allowed intensities are those of docs/spec/hooks-and-oracles.md#triggers; the lifecycle
 * triggers are the agent-runtime events (session, prompt, stop, compaction) that AHP also hooks.
 */
import { z } from 'zod';
import type { Intensity } from './intensity.js';

/** The domain triggers of docs/spec/hooks-and-oracles.md#triggers: pre/post × issue-start, tool-use, issue-submit, issue-close. */
export const DOMAIN_TRIGGERS = [
  'pre-issue-start',
  'post-issue-start',
  'pre-tool-use',
  'post-tool-use',
  'pre-issue-submit',
  'post-issue-submit',
  'pre-issue-close',
  'post-issue-close',
] as const;

/** Agent-runtime events AHP also hooks: session bounds, user prompts, end of turn, tasks, compaction. */
export const LIFECYCLE_TRIGGERS = [
  'session-start',
  'session-end',
  'user-prompt-submit',
  'stop',
  'task-complete',
  'pre-compact',
  'post-compact',
] as const;

/** Every trigger the protocol knows: the domain triggers, then the lifecycle ones. */
export const HOOK_TRIGGERS = [...DOMAIN_TRIGGERS, ...LIFECYCLE_TRIGGERS] as const;

/** The name of a hook point. Unknown names are rejected: a hook nobody configured cannot be answered. */
export const HookTriggerSchema = z.enum(HOOK_TRIGGERS).meta({
  id: 'HookTrigger',
  description: 'A hook point: pre/post issue-start, tool-use, issue-submit, issue-close, or a lifecycle event.',
});
export type HookTrigger = z.infer<typeof HookTriggerSchema>;

/**
 * What happens when no oracle answers in time (worker down, timeout): `fail_closed` denies the
 * operation, `fail_open` lets it proceed without intervention.
 */
export const FailurePolicySchema = z.enum(['fail_closed', 'fail_open']).meta({
  id: 'FailurePolicy',
  description: 'fail_closed denies the operation when oracles cannot answer; fail_open lets it proceed.',
});
export type FailurePolicy = z.infer<typeof FailurePolicySchema>;

/** `pre`: before the operation, may stop or change it. `post`: after it. `lifecycle`: agent-runtime events. */
export type TriggerPhase = 'pre' | 'post' | 'lifecycle';

/** Static facts about one trigger. */
export interface TriggerInfo {
  readonly phase: TriggerPhase;
  /** Intensities an oracle may use at this trigger, strongest first. */
  readonly allowed: readonly Intensity[];
  /** The signal type oracles typically emit here (docs/spec/hooks-and-oracles.md#triggers, last column). */
  readonly typicalSignal: string;
  /** Used when no failure policy is configured for the hook. */
  readonly defaultFailurePolicy: FailurePolicy;
  readonly description: string;
}

function info(
  phase: TriggerPhase,
  allowed: readonly Intensity[],
  typicalSignal: string,
  defaultFailurePolicy: FailurePolicy,
  description: string,
): TriggerInfo {
  return Object.freeze({ phase, allowed: Object.freeze([...allowed]), typicalSignal, defaultFailurePolicy, description });
}

/**
 * The trigger table.
 *
 * Domain triggers follow docs/spec/hooks-and-oracles.md#triggers: `pre-*` gates may block (and control, and at
 * `pre-issue-submit` also prompt; `pre-issue-close` only blocks), `post-*` triggers only aid, since
 * the operation already happened and nothing is left to stop.
 *
 * Lifecycle triggers are our choice, following the same logic:
 * - `session-start`: prompt, aid. Nothing is executing yet, so there is nothing to deny or adjust;
 *   the useful answers are warnings about the environment and context to load.
 * - `session-end`, `task-complete`: aid only. Both report something that already happened.
 * - `user-prompt-submit`: block, control, prompt. The prompt is an input that can be refused
 *   (a leaked secret), rewritten (redaction) or flagged.
 * - `stop`: block, prompt. The agent wants to end its turn; an oracle may refuse (work unverified)
 *   or warn, but there are no parameters to modify.
 * - `pre-compact`: block, prompt. Compaction can be postponed (state not yet saved) or warned
 *   about; its parameters belong to the agent runtime, not to AHP.
 * - `post-compact`: aid only. The history was compacted already; what helps is context to load
 *   again (Codex reports it, docs/coding-agents.md).
 *
 * Default failure policies follow one rule an operator can remember: every `pre-*` trigger fails
 * closed (the four `pre` gates guard irreversible operations — docs/spec/spectrum-and-signals.md#choosing-a-level: blocking protects against
 * data loss and compliance violations — and `pre-compact` guards state the agent may not have
 * saved yet); every other trigger fails open, including `user-prompt-submit` and `stop`: refusing
 * every prompt or every stop while the control plane is unreachable would stall the agent
 * outright. Deployments that want otherwise configure the policy per hook.
 */
export const TRIGGERS: Readonly<Record<HookTrigger, TriggerInfo>> = Object.freeze({
  'pre-issue-start': info('pre', ['block', 'control'], 'dependency-check', 'fail_closed', 'Before work on an issue starts.'),
  'post-issue-start': info('post', ['aid'], 'context-loaded', 'fail_open', 'After work on an issue started.'),
  'pre-tool-use': info('pre', ['block', 'control'], 'permission-check', 'fail_closed', 'Before a tool call runs.'),
  'post-tool-use': info('post', ['aid'], 'result-analysis', 'fail_open', 'After a tool call returned.'),
  'pre-issue-submit': info(
    'pre',
    ['block', 'control', 'prompt'],
    'quality-gate',
    'fail_closed',
    'Before work on an issue is submitted for review.',
  ),
  'post-issue-submit': info('post', ['aid'], 'review-triggered', 'fail_open', 'After work was submitted.'),
  'pre-issue-close': info('pre', ['block'], 'completion-verify', 'fail_closed', 'Before an issue is closed.'),
  'post-issue-close': info('post', ['aid'], 'retrospective', 'fail_open', 'After an issue was closed.'),
  'session-start': info('lifecycle', ['prompt', 'aid'], 'context-loaded', 'fail_open', 'An agent session begins.'),
  'session-end': info('lifecycle', ['aid'], 'retrospective', 'fail_open', 'An agent session ended.'),
  'user-prompt-submit': info(
    'lifecycle',
    ['block', 'control', 'prompt'],
    'security-violation',
    'fail_open',
    'A user prompt is about to reach the model.',
  ),
  stop: info('lifecycle', ['block', 'prompt'], 'completion-verify', 'fail_open', 'The agent is about to end its turn.'),
  'task-complete': info('lifecycle', ['aid'], 'retrospective', 'fail_open', 'The agent reports a task as complete.'),
  'pre-compact': info(
    'lifecycle',
    ['block', 'prompt'],
    'context-compaction',
    'fail_closed',
    'The agent runtime is about to compact its history.',
  ),
  'post-compact': info('lifecycle', ['aid'], 'context-loaded', 'fail_open', 'The agent runtime compacted its history.'),
});

/** The failure policy to use for `trigger` when the configuration names none. See {@link TRIGGERS}. */
export function defaultFailurePolicy(trigger: HookTrigger): FailurePolicy {
  return TRIGGERS[trigger].defaultFailurePolicy;
}

/** The intensities an oracle may answer `trigger` with, strongest first. */
export function allowedIntensities(trigger: HookTrigger): readonly Intensity[] {
  return TRIGGERS[trigger].allowed;
}

/** Whether a signal of `intensity` makes sense at `trigger` (config validation uses this). */
export function isIntensityAllowed(trigger: HookTrigger, intensity: Intensity): boolean {
  return TRIGGERS[trigger].allowed.includes(intensity);
}

/** Whether `trigger` fires before an operation, after it, or on an agent-lifecycle event. */
export function triggerPhase(trigger: HookTrigger): TriggerPhase {
  return TRIGGERS[trigger].phase;
}
