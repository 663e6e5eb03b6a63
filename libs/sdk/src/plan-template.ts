/**
 * The planning template of docs/spec/plans.md#planning-template: in the PLANNING state the model must answer with a
 * `[PLAN]` block of numbered, unchecked steps naming the tools each expects; the block is parsed
 * into a {@link Plan} and validated with the protocol's `PlanSchema` before any tool may run.
 * Model output is untrusted text: the parser is one pass over a bounded input and never throws.
 */
import { PlanSchema } from '@ahp/protocol/wire';
import type { Plan } from '@ahp/protocol/wire';

/** The template, for the system prompt: what a plan must look like and when it is asked for. */
export const PLANNING_INSTRUCTIONS = [
  'Planning comes first. While the session is in the PLANNING state you may not call tools; answer with a plan and nothing else, in this form:',
  '[PLAN] <a short title, optional>',
  '1. [ ] <what the first step does> (tools: <tool names the step will call, comma-separated, or none>)',
  '2. [ ] <what the next step does> (tools: ...) (after: <numbers of the steps it waits for, or none>)',
  'Number the steps from 1 without gaps and leave every box open. A step waits for the step before it unless "(after: ...)" says otherwise. Write nothing after the last step.',
].join('\n');

/** Text longer than this is refused unread: a plan is a short list. */
export const MAX_PLAN_TEXT_CHARS = 64 * 1024;
/** Steps one template may hold. */
export const MAX_TEMPLATE_STEPS = 100;
/** Errors reported back per refusal; more would only bloat the next prompt. */
const MAX_ERRORS = 10;

/** Options of {@link parsePlanTemplate}. */
export interface ParsePlanTemplateOptions {
  /** The title when the `[PLAN]` line has none (e.g. the goal). Cut to 200 characters. */
  readonly title: string;
  /**
   * The number of the first step's id: step `n` of the template gets the id `step_<first + n - 1>`.
   * A revision numbers on from the steps that exist, so its ids never collide with earlier ones.
   * @defaultValue 1
   */
  readonly firstStepNumber?: number;
}

/** A valid plan, or every reason (up to 10) why the text is not one. */
export type PlanTemplateResult = { readonly ok: true; readonly plan: Plan } | { readonly ok: false; readonly errors: readonly string[] };

/** `1. [ ] rest`: a number, a dot, an open box. No nested quantifiers: linear on any line. */
const STEP_LINE = /^(\d{1,4})\.[ \t]+\[ \][ \t]+(.*)$/;
/** `tools: a, b` or `after: 1, 2` inside a trailing parenthesis. */
const ANNOTATION = /^(tools|after|工具)[ \t]*[:：][ \t]*(.*)$/i;
const NONE = new Set(['', 'none', '-', '无']);

interface DraftStep {
  readonly number: number;
  readonly description: string;
  readonly tools: string[];
  readonly after: number[] | undefined;
}

/**
 * Reads a `[PLAN]` block (see {@link PLANNING_INSTRUCTIONS}) into a plan: step `n` gets the id
 * `step_<n>` (offset by `firstStepNumber`), status `pending`, its tools, and as dependencies the
 * steps named by `(after: …)`, or else the step before it. Text before the `[PLAN]` line is
 * ignored (a model may think aloud); after it, every non-blank line must be a step. The plan is
 * then held to `PlanSchema` (unique ids, known dependencies, no cycle, bounded sizes).
 */
export function parsePlanTemplate(text: unknown, options: ParsePlanTemplateOptions): PlanTemplateResult {
  if (typeof text !== 'string') return refuse(['the answer is not text']);
  if (text.length > MAX_PLAN_TEXT_CHARS) return refuse([`the answer is longer than ${MAX_PLAN_TEXT_CHARS} characters; a plan is a short list`]);
  const errors: string[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  let title: string | undefined;
  let markerLine = -1;
  lines.forEach((line, index) => {
    const marker = planMarker(line);
    if (marker === undefined) return;
    if (markerLine >= 0) errors.push(`line ${index + 1}: a second [PLAN] line; answer with one plan`);
    else {
      markerLine = index;
      title = marker;
    }
  });
  if (markerLine < 0) return refuse(['no [PLAN] line: start the plan with a line that begins with [PLAN]']);

  const steps: DraftStep[] = [];
  for (let index = markerLine + 1; index < lines.length && errors.length < MAX_ERRORS; index++) {
    const line = (lines[index] ?? '').trim();
    if (line === '') continue;
    if (planMarker(line) !== undefined) continue;
    const step = readStep(line, index + 1, errors);
    if (step === undefined) continue;
    if (step.number !== steps.length + 1) errors.push(`line ${index + 1}: step ${step.number} where step ${steps.length + 1} was due; number the steps 1, 2, 3, … in order`);
    steps.push(step);
    if (steps.length > MAX_TEMPLATE_STEPS) {
      errors.push(`more than ${MAX_TEMPLATE_STEPS} steps`);
      break;
    }
  }
  if (steps.length === 0 && errors.length === 0) errors.push('the plan has no steps: list them under the [PLAN] line as "1. [ ] …"');
  if (errors.length > 0) return refuse(errors);

  const first = options.firstStepNumber ?? 1;
  const idOf = (number: number) => `step_${first + number - 1}`;
  for (const step of steps) {
    for (const number of step.after ?? []) {
      if (number < 1 || number > steps.length) errors.push(`step ${step.number} waits for step ${number}, which the plan does not have`);
    }
  }
  if (errors.length > 0) return refuse(errors);
  const candidate = {
    title: (title !== undefined && title !== '' ? title : options.title).slice(0, 200) || 'plan',
    steps: steps.map((step) => ({
      id: idOf(step.number),
      description: step.description,
      dependencies: (step.after ?? (step.number > 1 ? [step.number - 1] : [])).map(idOf),
      status: 'pending' as const,
      tools_expected: step.tools,
    })),
  };
  const parsed = PlanSchema.safeParse(candidate);
  if (parsed.success) return { ok: true, plan: parsed.data };
  return refuse(
    parsed.error.issues.map((issue) => {
      const [head, index, ...rest] = issue.path;
      const where = head === 'steps' && typeof index === 'number' ? `step ${index + 1}${rest.length > 0 ? ` (${rest.map(String).join('.')})` : ''}` : issue.path.map(String).join('.') || 'plan';
      return `${where}: ${issue.message}`;
    }),
  );
}

function refuse(errors: readonly string[]): PlanTemplateResult {
  return { ok: false, errors: errors.slice(0, MAX_ERRORS) };
}

/** The title after a `[PLAN]` marker (markdown emphasis allowed around it), or undefined for another line. */
function planMarker(line: string): string | undefined {
  let rest = line.trim();
  while (rest.startsWith('*') || rest.startsWith('#') || rest.startsWith('>')) rest = rest.slice(1).trimStart();
  if (!rest.startsWith('[PLAN]')) return undefined;
  rest = rest.slice('[PLAN]'.length);
  while (rest.startsWith('*')) rest = rest.slice(1);
  rest = rest.trim();
  if (rest.startsWith(':') || rest.startsWith('-')) rest = rest.slice(1).trim();
  return rest;
}

/** One step line, or undefined with the reason pushed to `errors`. */
function readStep(line: string, lineNumber: number, errors: string[]): DraftStep | undefined {
  const match = STEP_LINE.exec(line);
  if (match === null) {
    errors.push(`line ${lineNumber}: not a step; every line after [PLAN] must read "<n>. [ ] <what to do> (tools: …)"`);
    return undefined;
  }
  const number = Number(match[1]);
  let rest = (match[2] ?? '').trimEnd();
  let tools: string[] | undefined;
  let after: number[] | undefined;
  // Peel at most two trailing annotations, "(tools: …)" and "(after: …)", in either order. A
  // parenthesis that is no annotation belongs to the description.
  for (let peeled = 0; peeled < 2 && rest.endsWith(')'); peeled++) {
    const open = rest.lastIndexOf('(');
    if (open < 0) break;
    const annotation = ANNOTATION.exec(rest.slice(open + 1, -1).trim());
    if (annotation === null) break;
    const label = (annotation[1] ?? '').toLowerCase();
    const items = (annotation[2] ?? '').split(/[,，]/).map((item) => item.trim());
    const listed = items.length === 1 && NONE.has((items[0] ?? '').toLowerCase()) ? [] : items;
    if (label === 'after') {
      if (after !== undefined) errors.push(`line ${lineNumber}: "(after: …)" given twice`);
      after = [];
      for (const item of listed) {
        if (!/^\d{1,4}$/.test(item)) errors.push(`line ${lineNumber}: "${item.slice(0, 40)}" in "(after: …)" is not a step number`);
        else after.push(Number(item));
      }
    } else {
      if (tools !== undefined) errors.push(`line ${lineNumber}: "(tools: …)" given twice`);
      tools = listed.filter((tool) => tool !== '');
    }
    rest = rest.slice(0, open).trimEnd();
  }
  if (tools === undefined) errors.push(`line ${lineNumber}: step ${number} names no tools; end it with "(tools: …)", or "(tools: none)"`);
  if (rest === '') errors.push(`line ${lineNumber}: step ${number} does not say what it does`);
  return { number, description: rest, tools: tools ?? [], after };
}
