/**
 * Executes a plan (docs/spec/plans.md#plans) on the agent side: which steps may run next, their status moves,
 * and partial replanning, with every change reported as a `plan_progress` event so the control
 * plane's timeline follows the plan. The graph rules (`readySteps`, validation) are @ahp/protocol's.
 */
import { PlanSchema, readySteps } from '@ahp/protocol/wire';
import type { Plan, PlanStep, PlanStepStatus } from '@ahp/protocol/wire';
import { reportQuietly } from './event-sink.js';
import type { EventSink } from './event-sink.js';
import { silentLogger } from './logger.js';
import type { Logger } from './logger.js';

/** Options of {@link PlanRunner}. */
export interface PlanRunnerOptions {
  /** Receives `plan_progress` events, e.g. the {@link AhpClient}. @defaultValue none: nothing is reported */
  readonly sink?: EventSink;
  /** The approval request of this plan, carried on its progress events. @defaultValue none */
  readonly requestId?: string;
  /** @defaultValue {@link silentLogger} */
  readonly logger?: Logger;
}

/** Statuses a step may move from, per target status. `done` and `skipped` are final. */
const ALLOWED_FROM: Readonly<Record<'in_progress' | 'done' | 'failed' | 'skipped', readonly PlanStepStatus[]>> = {
  in_progress: ['pending'],
  done: ['pending', 'in_progress'],
  failed: ['pending', 'in_progress'],
  skipped: ['pending', 'failed'],
};

const FINAL: ReadonlySet<PlanStepStatus> = new Set(['done', 'skipped']);

/**
 * Holds one plan and moves its steps. Every method that changes the plan validates the move
 * (an impossible move throws: it is a bug in the loop, not a model mistake), reports the new plan,
 * and resolves once reported; a failed report is logged, not thrown.
 */
export class PlanRunner {
  #plan: Plan;
  readonly #sink: EventSink | undefined;
  readonly #requestId: string | undefined;
  readonly #logger: Logger;

  /** Validates `plan` with `PlanSchema` (throws a `ZodError` on a cycle, unknown dependency, …). */
  constructor(plan: Plan, options: PlanRunnerOptions = {}) {
    this.#plan = PlanSchema.parse(plan);
    this.#sink = options.sink;
    this.#requestId = options.requestId;
    this.#logger = options.logger ?? silentLogger;
  }

  /** A copy of the current plan. */
  get plan(): Plan {
    return structuredClone(this.#plan);
  }

  /** True when every step is `done` or `skipped`. */
  get finished(): boolean {
    return this.#plan.steps.every((step) => FINAL.has(step.status));
  }

  /** The steps that may start now (pending, dependencies settled), in plan order. */
  ready(): PlanStep[] {
    return structuredClone(readySteps(this.#plan));
  }

  /** The step with `id`. Throws when the plan has none. */
  step(id: string): PlanStep {
    return structuredClone(this.#find(id));
  }

  /** Reports the plan as it stands, e.g. once at the start. */
  async report(stepId?: string): Promise<void> {
    const event = {
      kind: 'plan_progress' as const,
      plan: this.plan,
      ...(stepId === undefined ? {} : { step_id: stepId }),
      ...(this.#requestId === undefined ? {} : { request_id: this.#requestId }),
    };
    await reportQuietly(this.#sink, event, this.#logger);
  }

  /** `pending` → `in_progress`. Only a ready step may start. */
  async start(id: string): Promise<void> {
    if (!readySteps(this.#plan).some((step) => step.id === id)) {
      throw new Error(`step "${id}" is not ready: it is not pending or waits for a dependency`);
    }
    await this.#move(id, 'in_progress');
  }

  /** → `done`, on a `step_done` control signal. */
  complete(id: string): Promise<void> {
    return this.#move(id, 'done');
  }

  /** → `failed`. Its dependents wait until the step is retried ({@link retry}) or the plan revised. */
  fail(id: string): Promise<void> {
    return this.#move(id, 'failed');
  }

  /** → `skipped`: settled without doing it, so its dependents may run. */
  skip(id: string): Promise<void> {
    return this.#move(id, 'skipped');
  }

  /** `failed` → `pending`, to try the step again. */
  async retry(id: string): Promise<void> {
    const step = this.#find(id);
    if (step.status !== 'failed') throw new Error(`step "${id}" is ${step.status}, only a failed step can be retried`);
    this.#set(id, 'pending');
    await this.report(id);
  }

  /**
   * Partial replanning on a `replan` control signal: the revised plan replaces the current one,
   * but work already finished stays finished. A step of the revised plan whose id was `done` or
   * `skipped` keeps that status; finished steps the revision leaves out are kept in front of it
   * (the record of what happened, and dependencies on them still resolve). The other steps take
   * the revision's statuses, except that `in_progress` becomes `pending`: a replan interrupts the
   * current step, and a step left `in_progress` would never be offered by {@link ready} again.
   * Throws a `ZodError` when the merged plan is invalid.
   */
  async replan(revised: Plan): Promise<void> {
    const finished = new Map(this.#plan.steps.filter((step) => FINAL.has(step.status)).map((step) => [step.id, step.status] as const));
    const revisedIds = new Set(revised.steps.map((step) => step.id));
    const kept = this.#plan.steps.filter((step) => FINAL.has(step.status) && !revisedIds.has(step.id));
    const statusOf = (step: PlanStep): PlanStepStatus => finished.get(step.id) ?? (step.status === 'in_progress' ? 'pending' : step.status);
    const steps = [...kept, ...revised.steps.map((step) => ({ ...step, status: statusOf(step) }))];
    this.#plan = PlanSchema.parse({ ...revised, steps });
    await this.report();
  }

  async #move(id: string, to: keyof typeof ALLOWED_FROM): Promise<void> {
    const from = this.#find(id).status;
    if (!ALLOWED_FROM[to].includes(from)) throw new Error(`step "${id}" cannot move from ${from} to ${to}`);
    this.#set(id, to);
    await this.report(id);
  }

  #find(id: string): PlanStep {
    const step = this.#plan.steps.find((candidate) => candidate.id === id);
    if (step === undefined) throw new Error(`plan "${this.#plan.title}" has no step "${id}"`);
    return step;
  }

  #set(id: string, status: PlanStepStatus): void {
    this.#plan = { ...this.#plan, steps: this.#plan.steps.map((step) => (step.id === id ? { ...step, status } : step)) };
  }
}
