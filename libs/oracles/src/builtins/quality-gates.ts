/**
 * The quality gates of docs/spec/hooks-and-oracles.md#quality-gates at `pre-issue-submit`: `checklist-validator`,
 * `change-size-limiter` and `test-gate`. Each is a rule oracle (its rules are in hooks.yaml, or
 * the defaults of the specification when none are given) plus facts it derives from the context so that agents may send
 * raw lists (`checklist.items`, `files.changed`, `tests.failed`) instead of counts.
 */
import type { HookRule } from '@ahp/protocol';
import { z } from 'zod';
import { isPlainObject, member } from '../expression/values.js';
import type { Value } from '../expression/values.js';
import { defineBuiltin } from './types.js';

const STEP_TEXT = z.string().min(1).max(256);

/** Replaces `context[key]` by `update(context[key])`, copying (the context is frozen). */
function patch(context: Value, key: string, update: (value: Record<string, Value>) => Record<string, Value>): Value {
  const current = member(context, key);
  if (!isPlainObject(context) || !isPlainObject(current)) return context;
  return { ...(context as Record<string, Value>), [key]: update(current as Record<string, Value>) };
}

function text(value: Value): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value.trim().slice(0, 512);
  if (typeof value === 'number') return String(value);
  return undefined;
}

function listSteps(steps: string[], max: number): string[] {
  if (steps.length <= max) return steps;
  return [...steps.slice(0, max), `… and ${steps.length - max} more`];
}

// --- checklist-validator -----------------------------------------------------------------------

const DONE_STATUSES: ReadonlySet<string> = new Set(['done', 'completed', 'complete', 'checked']);

/**
 * Facts from `checklist.items` (a list of `{ id, title, done }`, or `status: done|completed`):
 * `total`, `completed_count`, `incomplete_count`, `completion_rate` (1 for an empty list),
 * `incomplete_ids` (ids, `#<n>` for an item without one) and `incomplete` (`{ id, title }`).
 * When `items` is a list these replace whatever counts the agent sent; without `items` the
 * agent's own counts are used as they are.
 */
export function checklistFacts(context: Value): Value {
  return patch(context, 'checklist', (checklist) => {
    const items = checklist['items'];
    if (!Array.isArray(items)) return checklist;
    const incomplete: { id: string; title: string | null }[] = [];
    items.forEach((item: Value, index: number) => {
      const status = member(item, 'status');
      const done = member(item, 'done') === true || (typeof status === 'string' && DONE_STATUSES.has(status.toLowerCase()));
      if (!done) incomplete.push({ id: text(member(item, 'id')) ?? `#${index + 1}`, title: text(member(item, 'title')) ?? null });
    });
    const total = items.length;
    return {
      ...checklist,
      total,
      completed_count: total - incomplete.length,
      incomplete_count: incomplete.length,
      completion_rate: total === 0 ? 1 : (total - incomplete.length) / total,
      incomplete_ids: incomplete.map((item) => item.id),
      incomplete,
    };
  });
}

export const checklistValidator = defineBuiltin({
  name: 'checklist-validator',
  summary: 'Blocks a submit while checklist items are open, naming each one in the resolution path (docs/spec/hooks-and-oracles.md#quality-gates).',
  triggers: ['pre-issue-submit', 'pre-issue-close', 'stop'],
  options: z.strictObject({
    /** Words before each incomplete item in a block's resolution path: "<prefix> <id>: <title>". */
    step_prefix: STEP_TEXT.default('Complete'),
    /** At most this many items are listed; the rest are counted. */
    max_listed: z.int().positive().max(200).default(20),
  }),
  acceptsRules: true,
  defaultRules: (): HookRule[] => [
    {
      id: 'incomplete',
      condition: 'checklist.incomplete_count > 0',
      intensity: 'block',
      message: 'Checklist incomplete: {{ checklist.incomplete_ids }}',
    },
    {
      id: 'mostly-complete',
      condition: 'checklist.incomplete_count > 0 and checklist.completion_rate > 0.8',
      intensity: 'prompt',
      message: 'Most of the checklist is done; submit anyway?',
    },
  ],
  facts: () => checklistFacts,
  extras: (options) => ({
    resolutionSteps: (scope) => {
      const incomplete = member(member(scope.context, 'checklist'), 'incomplete');
      if (!Array.isArray(incomplete)) return [];
      const steps = incomplete.map((item: Value) => {
        const id = text(member(item, 'id')) ?? '?';
        const title = text(member(item, 'title'));
        return title === undefined ? `${options.step_prefix} ${id}` : `${options.step_prefix} ${id}: ${title}`;
      });
      return listSteps(steps, options.max_listed);
    },
  }),
});

// --- change-size-limiter ---------------------------------------------------------------------

/** Facts from `files.changed` (a list of paths): `changed_count` is its length, replacing any count the agent sent. */
export function changeSizeFacts(context: Value): Value {
  return patch(context, 'files', (files) => {
    const changed = files['changed'];
    return Array.isArray(changed) ? { ...files, changed_count: changed.length } : files;
  });
}

export const changeSizeLimiter = defineBuiltin({
  name: 'change-size-limiter',
  summary: 'Large changes: suggests splitting them into batches (control with split_suggestion, docs/spec/hooks-and-oracles.md#quality-gates).',
  triggers: ['pre-issue-submit', 'pre-issue-close'],
  options: z.strictObject({
    /** Default rule: more changed files than this trips it (docs/spec/hooks-and-oracles.md#quality-gates: 20). */
    max_files: z.int().nonnegative().max(100_000).default(20),
    /** Default rule: the batch size it suggests (docs/spec/hooks-and-oracles.md#quality-gates: 10). */
    max_batch: z.int().positive().max(100_000).default(10),
  }),
  acceptsRules: true,
  defaultRules: (options): HookRule[] => [
    {
      id: 'large-change',
      condition: `files.changed_count > ${options.max_files}`,
      intensity: 'control',
      action: { type: 'split_suggestion', max_batch: options.max_batch },
    },
  ],
  facts: () => changeSizeFacts,
});

// --- test-gate ---------------------------------------------------------------------------------

/**
 * Facts from `tests.failed` (a list of test names, or of `{ name }`): `failed_count` is its
 * length; and `coverage.threshold` from the oracle's `coverage_threshold` option when the
 * context gives none.
 */
export function testFacts(coverageThreshold: number | undefined): (context: Value) => Value {
  return (context) => {
    let out = patch(context, 'tests', (tests) => {
      const failed = tests['failed'];
      return Array.isArray(failed) ? { ...tests, failed_count: failed.length } : tests;
    });
    if (coverageThreshold !== undefined) {
      out = patch(out, 'coverage', (coverage) =>
        typeof coverage['threshold'] === 'number' ? coverage : { ...coverage, threshold: coverageThreshold },
      );
    }
    return out;
  };
}

export const testGate = defineBuiltin({
  name: 'test-gate',
  summary: 'Failing tests block; coverage under the threshold prompts (docs/spec/hooks-and-oracles.md#quality-gates).',
  triggers: ['pre-issue-submit', 'pre-issue-close', 'stop'],
  options: z.strictObject({
    /** `coverage.threshold` when the context gives none (same unit as `coverage.current`). */
    coverage_threshold: z.number().min(0).max(100).optional(),
    /** Words before each failing test in a block's resolution path. */
    step_prefix: STEP_TEXT.default('Fix the failing test'),
    max_listed: z.int().positive().max(200).default(20),
  }),
  acceptsRules: true,
  defaultRules: (): HookRule[] => [
    { id: 'tests-failed', condition: 'tests.failed_count > 0', intensity: 'block', message: 'Tests failed: {{ tests.failed_count }}' },
    {
      id: 'coverage-low',
      condition: 'coverage.current < coverage.threshold',
      intensity: 'prompt',
      message: 'Coverage {{ coverage.current }} is below the threshold {{ coverage.threshold }}',
    },
  ],
  facts: (options) => testFacts(options.coverage_threshold),
  extras: (options) => ({
    resolutionSteps: (scope) => {
      const failed = member(member(scope.context, 'tests'), 'failed');
      if (!Array.isArray(failed)) return [];
      const steps = failed.flatMap((test: Value) => {
        const name = text(test) ?? text(member(test, 'name'));
        return name === undefined ? [] : [`${options.step_prefix}: ${name}`];
      });
      return listSteps(steps, options.max_listed);
    },
  }),
});
