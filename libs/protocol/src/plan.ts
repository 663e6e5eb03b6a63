/**
 * The explicit plan of docs/spec/plans.md#plans: a titled list of steps with dependencies between them. A
 * valid plan is a DAG over unique step ids, so an executor can always find the next step.
 */
import { z } from 'zod';
import { IdSchema, ShortStringSchema, TextSchema, boundedArray } from './primitives.js';

/** Where a step stands. `skipped` counts as settled for its dependents, like `done`. */
export const PlanStepStatusSchema = z.enum(['pending', 'in_progress', 'done', 'failed', 'skipped']).meta({
  id: 'PlanStepStatus',
  description: 'pending | in_progress | done | failed | skipped.',
});
export type PlanStepStatus = z.infer<typeof PlanStepStatusSchema>;

/**
 * One step. `dependencies` lists ids of steps that must be settled first; `tools_expected` names
 * the tools the step is expected to call (the gate that blocks unapproved tool calls uses it).
 * Both arrays are required, possibly empty, as in the original design.
 */
export const PlanStepSchema = z
  .strictObject({
    id: IdSchema,
    description: TextSchema.min(1),
    dependencies: boundedArray(IdSchema),
    status: PlanStepStatusSchema,
    tools_expected: boundedArray(ShortStringSchema),
  })
  .meta({ id: 'PlanStep', description: 'One plan step: id, description, dependencies, status, expected tools.' });
export type PlanStep = z.infer<typeof PlanStepSchema>;

/**
 * Finds a dependency cycle among `steps`, returned as the ids along it with the first id repeated
 * at the end (`['a', 'b', 'a']`), or `null` when there is none. Dependencies on unknown ids are
 * ignored here. Iterative depth-first search: a long dependency chain cannot overflow the stack.
 */
export function findDependencyCycle(steps: readonly Pick<PlanStep, 'id' | 'dependencies'>[]): string[] | null {
  const deps = new Map<string, readonly string[]>();
  for (const step of steps) if (!deps.has(step.id)) deps.set(step.id, step.dependencies);
  const state = new Map<string, 'visiting' | 'done'>();
  for (const root of deps.keys()) {
    if (state.has(root)) continue;
    const stack: { id: string; next: number }[] = [{ id: root, next: 0 }];
    state.set(root, 'visiting');
    for (let frame = stack.at(-1); frame !== undefined; frame = stack.at(-1)) {
      const children = deps.get(frame.id) ?? [];
      if (frame.next >= children.length) {
        state.set(frame.id, 'done');
        stack.pop();
        continue;
      }
      const child = children[frame.next++];
      if (child === undefined || !deps.has(child)) continue;
      const seen = state.get(child);
      if (seen === 'visiting') {
        const ids = stack.map((f) => f.id);
        return [...ids.slice(ids.indexOf(child)), child];
      }
      if (seen === 'done') continue;
      state.set(child, 'visiting');
      stack.push({ id: child, next: 0 });
    }
  }
  return null;
}

/**
 * A plan. Invariants, each reported at the offending path: step ids are unique; every dependency
 * names an existing step; no step depends on itself or lists a dependency twice; there is no
 * cycle (the message spells the cycle out, e.g. `a → b → a`). `verification_policy` names how
 * results get checked (the original design's `run_pytest`); its values are open.
 */
export const PlanSchema = z
  .strictObject({
    title: TextSchema.min(1),
    steps: boundedArray(PlanStepSchema).min(1),
    verification_policy: ShortStringSchema.optional(),
  })
  .superRefine((plan, ctx) => {
    const firstIndex = new Map<string, number>();
    plan.steps.forEach((step, i) => {
      const earlier = firstIndex.get(step.id);
      if (earlier === undefined) firstIndex.set(step.id, i);
      else ctx.addIssue({ code: 'custom', path: ['steps', i, 'id'], message: `duplicate step id "${step.id}" (also at steps[${earlier}])` });
    });
    let dependenciesValid = true;
    plan.steps.forEach((step, i) => {
      const listed = new Set<string>();
      step.dependencies.forEach((dep, j) => {
        const path = ['steps', i, 'dependencies', j];
        if (dep === step.id) {
          ctx.addIssue({ code: 'custom', path, message: `step "${step.id}" depends on itself` });
          dependenciesValid = false;
        } else if (!firstIndex.has(dep)) {
          ctx.addIssue({ code: 'custom', path, message: `step "${step.id}" depends on unknown step "${dep}"` });
          dependenciesValid = false;
        } else if (listed.has(dep)) {
          ctx.addIssue({ code: 'custom', path, message: `step "${step.id}" lists dependency "${dep}" twice` });
        }
        listed.add(dep);
      });
    });
    if (!dependenciesValid) return;
    const cycle = findDependencyCycle(plan.steps);
    if (cycle !== null) {
      ctx.addIssue({
        code: 'custom',
        path: ['steps', firstIndex.get(cycle[0] ?? '') ?? 0, 'dependencies'],
        message: `dependency cycle: ${cycle.join(' → ')}`,
      });
    }
  })
  .meta({ id: 'Plan', description: 'A plan: title, steps forming a dependency DAG, optional verification policy.' });
export type Plan = z.infer<typeof PlanSchema>;

const SETTLED: ReadonlySet<PlanStepStatus> = new Set(['done', 'skipped']);

/**
 * The steps that may start now: `pending`, with every dependency `done` or `skipped`. A `failed`
 * dependency keeps its dependents waiting until the plan is revised. Preserves plan order.
 */
export function readySteps(plan: Plan): PlanStep[] {
  const status = new Map(plan.steps.map((step) => [step.id, step.status] as const));
  return plan.steps.filter(
    (step) => step.status === 'pending' && step.dependencies.every((dep) => SETTLED.has(status.get(dep) ?? 'pending')),
  );
}
