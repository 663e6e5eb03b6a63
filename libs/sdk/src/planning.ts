/**
 * The PLANNING state of the reference loop: getting a valid plan from the model, through the
 * `[PLAN]` template (docs/spec/plans.md#planning-template) or as plan objects, with bounded retries. Nothing here runs a
 * tool or talks to the control plane; the loop moves on only with a plan `PlanSchema` accepted.
 */
import { PlanSchema } from '@ahp/protocol/wire';
import type { Plan } from '@ahp/protocol/wire';
import type { ChatMessage } from './history.js';
import type { Logger } from './logger.js';
import { parsePlanTemplate } from './plan-template.js';

/** What planning needs of the model: text answers for the template, or plan objects. */
export interface PlanningModel {
  /** The model's text answer to the (trimmed) conversation, without tools: how it answers the `[PLAN]` template. */
  complete?(turn: { readonly messages: readonly ChatMessage[] }): Promise<string>;
  /** The first plan for `goal`, as an object. */
  plan?(goal: string): Promise<Plan>;
  /** A revised plan after a `replan` signal, as an object; the loop keeps the steps already done. */
  replan?(current: Plan, reason: string | undefined): Promise<Plan>;
}

/** The planning route and the model methods it needs, checked once at the start. */
export type Planner =
  | { readonly kind: 'template'; readonly complete: NonNullable<PlanningModel['complete']> }
  | { readonly kind: 'model'; readonly plan: NonNullable<PlanningModel['plan']>; readonly replan: NonNullable<PlanningModel['replan']> };

/** The route to plan with (`chosen`, or the template when the model can answer it) and its methods; throws when the model cannot serve it. */
export function resolvePlanner(model: PlanningModel, chosen: 'template' | 'model' | undefined): Planner {
  const kind = chosen ?? (model.complete !== undefined ? 'template' : 'model');
  if (kind === 'template') {
    if (model.complete === undefined) throw new TypeError('planner "template" needs a model with complete()');
    return { kind, complete: model.complete.bind(model) };
  }
  if (model.plan === undefined || model.replan === undefined) throw new TypeError('planner "model" needs a model with plan() and replan()');
  return { kind, plan: model.plan.bind(model), replan: model.replan.bind(model) };
}

/** What a planning round works with: the route, the retry bound, and the loop's conversation. */
export interface PlanningContext {
  readonly planner: Planner;
  readonly attempts: number;
  readonly say: (role: ChatMessage['role'], content: string) => void;
  readonly visible: () => readonly ChatMessage[];
  readonly logger: Logger;
}

/** A valid plan, or the reasons the last answer was refused. */
export type PlanningOutcome = { readonly ok: true; readonly plan: Plan } | { readonly ok: false; readonly errors: readonly string[] };

/**
 * The PLANNING state: asks for a plan (the first one, or a revision of `current`) until one is
 * valid or `attempts` answers were refused. With the template, each refusal goes back to the model
 * with its reasons; a revision numbers its steps on from the existing ones, so finished steps keep
 * their ids and the partial replan of {@link PlanRunner} keeps them done.
 */
export async function obtainPlan(context: PlanningContext, request: { goal: string } | { current: Plan; reason: string | undefined }): Promise<PlanningOutcome> {
  const { planner, logger } = context;
  let errors: readonly string[] = [];
  if (planner.kind === 'model') {
    for (let attempt = 1; attempt <= context.attempts; attempt++) {
      const proposed = 'goal' in request ? await planner.plan(request.goal) : await planner.replan(request.current, request.reason);
      const parsed = PlanSchema.safeParse(proposed);
      if (parsed.success) return { ok: true, plan: parsed.data };
      errors = parsed.error.issues.slice(0, 10).map((issue) => `${issue.path.map(String).join('.') || 'plan'}: ${issue.message}`);
      logger.warn({ code: 'PLAN_INVALID', attempt, errors: errors.join('; ') }, 'the model proposed an invalid plan');
    }
    return { ok: false, errors };
  }

  const firstStepNumber = 'goal' in request ? 1 : nextStepNumber(request.current);
  const { say } = context;
  say('user', 'goal' in request ? planningRequest() : revisionRequest(request.current, request.reason));
  for (let attempt = 1; attempt <= context.attempts; attempt++) {
    const answer = await planner.complete({ messages: context.visible() });
    say('assistant', answer);
    const parsed = parsePlanTemplate(answer, { title: 'goal' in request ? request.goal : request.current.title, firstStepNumber });
    if (parsed.ok) {
      say('user', `Plan accepted (${parsed.plan.steps.map((step) => step.id).join(', ')}). State: EXECUTING.`);
      return parsed;
    }
    errors = parsed.errors;
    logger.warn({ code: 'PLAN_INVALID', attempt, errors: errors.join('; ') }, 'the model answered the planning template with an invalid plan');
    if (attempt < context.attempts) {
      say('user', `State: PLANNING. That plan was refused:\n${errors.map((error) => `- ${error}`).join('\n')}\nAnswer again with the whole plan in the [PLAN] form.`);
    }
  }
  return { ok: false, errors };
}

function planningRequest(): string {
  return 'State: PLANNING. Before any tool runs, answer with the plan for this goal in the [PLAN] form.';
}

function revisionRequest(current: Plan, reason: string | undefined): string {
  const lines = current.steps.map((step) => `- ${step.id} (${step.status}): ${step.description}`);
  return [
    `State: PLANNING. The plan must change${reason === undefined ? '' : `: ${reason}`}.`,
    'Where it stands:',
    ...lines,
    'Finished steps stay finished. Answer in the [PLAN] form with the steps that remain to be done, numbered from 1; they replace every unfinished step.',
  ].join('\n');
}

/** The number after the highest `step_<n>` id of `plan`, so a revision's ids are new. */
function nextStepNumber(plan: Plan): number {
  let highest = plan.steps.length;
  for (const step of plan.steps) {
    const match = /^step_(\d{1,9})$/.exec(step.id);
    if (match !== null) highest = Math.max(highest, Number(match[1]));
  }
  return highest + 1;
}
