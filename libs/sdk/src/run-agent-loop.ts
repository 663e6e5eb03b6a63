/**
 * A reference agent loop that wires the agent-side protocols together: plan (the PLANNING state of
 * docs/spec/plans.md#planning-template) → optional approval → for each step, model turns with hooks around every tool
 * call, the control envelope for `step_done` / `replan`, verification, and the circuit breakers.
 * Small on purpose: a real agent can use it as it is or copy the parts it needs.
 */
import type { ControlReadMode, HookTrigger, InterventionPayload, JsonObject, Plan, PlanStep, ProtocolState, Signal, StopReason, VerificationResult } from '@ahp/protocol/wire';
import { applyModifications } from '@ahp/protocol/wire';
import { LoopBreakers } from './breakers.js';
import type { LoopLimits } from './breakers.js';
import type { HookOptions } from './hook-calls.js';
import type { HookResult } from './hook-result.js';
import { readControlSignal } from './control.js';
import type { EventSink } from './event-sink.js';
import { trimHistory } from './history.js';
import type { ChatMessage, TokenCounter } from './history.js';
import { silentLogger } from './logger.js';
import type { Logger } from './logger.js';
import { PlanRunner } from './plan-runner.js';
import { Phase } from './loop-phase.js';
import type { AgentLoopPhase } from './loop-phase.js';
import { PLANNING_INSTRUCTIONS } from './plan-template.js';
import { obtainPlan, resolvePlanner } from './planning.js';
import type { PlanningContext, PlanningModel } from './planning.js';
import type { RequestInterventionOptions, SubmitPlanOptions } from './team-requests.js';
import type { RequestDecision } from './team.js';
import { reportVerification } from './verification.js';

/** What the model says in one turn: call a tool, or talk (which may carry a control envelope). */
export type ModelAction = { readonly type: 'tool_call'; readonly tool: string; readonly input: JsonObject } | { readonly type: 'text'; readonly text: string };

/**
 * The model, as the loop needs it. Adapt an LLM client to this, or use {@link scriptedModel}.
 * Planning takes one of two routes (see {@link AgentLoopOptions.planner}): `complete` answers the
 * planning template in text, which the loop parses and validates; or `plan` / `replan` hand over
 * ready plan objects (an adapter that asks the model for JSON).
 */
export interface AgentModel extends PlanningModel {
  /** The next action for `step`, given the (trimmed) conversation. */
  next(turn: { readonly step: PlanStep; readonly messages: readonly ChatMessage[] }): Promise<ModelAction>;
}

/** A tool's outcome. A failure (`ok: false`) goes back to the model, it does not end the loop. */
export type ToolOutcome = { readonly ok: true; readonly output: string } | { readonly ok: false; readonly code?: string; readonly error: string };

/** A tool the model may call. Node tools with a timeout can run through `runTool` of `@ahp/sdk/node`. */
export type AgentTool = (input: JsonObject) => Promise<ToolOutcome>;

/** The consumption actions the loop answers signals with. */
export type LoopAnswer = 'retry_after_fix' | 'abort' | 'accept_modification' | 'reject_modification' | 'acknowledge' | 'suggestion_deferred';

/** The parts of {@link AhpClient} the loop uses; the client fits as it is, a fake fits in tests. */
export interface AgentLoopClient extends EventSink {
  hook(trigger: HookTrigger, context?: JsonObject, options?: HookOptions): Promise<HookResult>;
  respond(signal: Signal, action: LoopAnswer): Promise<void>;
  submitPlan(plan: Plan, options?: SubmitPlanOptions): Promise<RequestDecision>;
  /** When present and set, this agent approved a shutdown: the loop stops with `stopReason: 'shutdown'`. */
  readonly shutdownApproved?: ProtocolState | undefined;
  /** When present, each tool call (hooks included) runs inside it, so the default shutdown policy refuses while one runs. */
  trackToolCall?<T>(name: string, run: () => Promise<T>): Promise<T>;
  /** When present, `MAX_ITER` opens an intervention request with it (see {@link AgentLoopOptions.intervention}). */
  requestIntervention?(payload: InterventionPayload, options?: RequestInterventionOptions): Promise<RequestDecision>;
  /**
   * When present, signals pushed outside hooks (an operator's prompt or aid) reach the model and
   * are answered (see {@link runAgentLoop}). Returns the unsubscribe function.
   */
  onSignal?(handler: (signal: Signal) => void | Promise<void>): () => void;
}

/** Options of {@link runAgentLoop}. */
export interface AgentLoopOptions {
  readonly model: AgentModel;
  readonly tools: Readonly<Record<string, AgentTool>>;
  readonly client: AgentLoopClient;
  /** What the agent is asked to do; the first user message. */
  readonly goal: string;
  /** @defaultValue `'You are a careful coding agent.'` plus the control-envelope instructions (and the planning template when the loop plans with it) */
  readonly system?: string;
  /**
   * How the plan is made. `template` (docs/spec/plans.md#planning-template): in the PLANNING state the model answers the
   * `[PLAN]` template through `model.complete`; the answer is parsed and validated with
   * `PlanSchema` before any tool runs, and a refused answer is sent back with the reasons.
   * `model`: `model.plan` / `model.replan` return plan objects, validated the same way.
   * @defaultValue `template` when the model has `complete`, else `model`
   */
  readonly planner?: 'template' | 'model';
  /** Answers asked for per planning round before the loop gives up with `stopReason: 'error'`. @defaultValue 3 */
  readonly planningAttempts?: number;
  /** Called on every phase change, e.g. to show where the agent stands. */
  readonly onPhase?: (phase: AgentLoopPhase) => void;
  /**
   * Submit the plan for approval (in the `awaiting_approval` phase) and wait: to the lead when the
   * client knows one (`ClientOptions.lead`), else to the operators, or as the options say. @defaultValue false
   */
  readonly approvePlan?: boolean | SubmitPlanOptions;
  /** Runs a check when a step reports done; a failed result keeps the step open. @defaultValue no verification */
  readonly verify?: (step: PlanStep) => Promise<VerificationResult>;
  /** How model text is read for control signals (see {@link readControlSignal}). @defaultValue `'seed'` */
  readonly controlMode?: ControlReadMode;
  /** Circuit-breaker limits. @defaultValue the server's: 50 identical calls, 20 iterations */
  readonly limits?: LoopLimits;
  /** Token budget of the history sent to the model. @defaultValue no trimming */
  readonly historyBudget?: number;
  /** @defaultValue the estimate of {@link trimHistory} */
  readonly countTokens?: TokenCounter;
  /** @defaultValue {@link silentLogger} */
  readonly logger?: Logger;
  /**
   * At `MAX_ITER`, ask a person to look: an `intervention` request to the operators (or to the
   * options' `target`), whose decision {@link AgentLoopResult.intervention} carries. `false`: stop
   * without asking. @defaultValue the operators
   */
  readonly intervention?: false | RequestInterventionOptions;
}

/** How the loop ended. */
export interface AgentLoopResult {
  /** `completed`, `MAX_ITER` (a person must look), `aborted` (plan not approved), `shutdown` (this agent approved a shutdown) or `error` (no valid plan, or no step can run). */
  readonly stopReason: StopReason;
  /** The plan as it stands; undefined only when planning never produced a valid plan. */
  readonly plan: Plan | undefined;
  /** Set when the loop stopped because no valid plan came within `planningAttempts`: the reasons the last answer was refused. */
  readonly planningErrors?: readonly string[];
  readonly iterations: number;
  readonly messages: readonly ChatMessage[];
  /**
   * Set at `MAX_ITER` when an intervention was requested: its id (in the console's approval queue)
   * and the person's decision once made — approved: run the loop again, with the feedback as
   * guidance; rejected or expired: stay stopped. A request that could not be opened rejects.
   */
  readonly intervention?: { readonly requestId: string; readonly decision: Promise<RequestDecision> };
}

const ENVELOPE_RULES =
  'When a step is finished answer with exactly {"control":"step_done"}; when the plan must change answer with exactly {"control":"replan","reason":"…"}.';

const DEFAULT_PLANNING_ATTEMPTS = 3;

export type { AgentLoopPhase } from './loop-phase.js';

/**
 * Runs the loop until every plan step is settled, the iteration breaker trips (`MAX_ITER`: a
 * `stop` hook carries the reason to the control plane, and an `intervention` request asks a person
 * to look), the plan is not approved, no valid plan comes, or no step can run.
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const { model, client } = options;
  const logger = options.logger ?? silentLogger;
  const planner = resolvePlanner(options.model, options.planner);
  const attempts = options.planningAttempts ?? DEFAULT_PLANNING_ATTEMPTS;
  if (!Number.isSafeInteger(attempts) || attempts < 1) throw new RangeError(`planningAttempts must be a positive integer, got ${attempts}`);
  const breakers = new LoopBreakers(options.limits);
  const phase = new Phase(options.onPhase);
  const system = `${options.system ?? 'You are a careful coding agent.'} ${ENVELOPE_RULES}${planner.kind === 'template' ? `\n\n${PLANNING_INSTRUCTIONS}` : ''}`;
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: options.goal },
  ];
  const say = (role: ChatMessage['role'], content: string) => void messages.push({ role, content });
  const visible = (): readonly ChatMessage[] => {
    // Only what the model sees is trimmed: the full conversation is the record the result returns.
    if (options.historyBudget === undefined) return messages;
    const history = trimHistory(messages, { budget: options.historyBudget, ...(options.countTokens === undefined ? {} : { countTokens: options.countTokens }) });
    if (history.removed > 0) logger.info({ code: 'HISTORY_TRIMMED', removed: history.removed }, 'history trimmed');
    return history.messages;
  };
  const planning: PlanningContext = { planner, attempts, say, visible, logger };
  // Signals pushed outside hooks wait here for the next model turn (held while planning).
  const pushed: Signal[] = [];
  const unsubscribe = client.onSignal?.((signal) => void pushed.push(signal));
  try {
    return await loop();
  } finally {
    unsubscribe?.();
  }

  async function loop(): Promise<AgentLoopResult> {

  const first = await obtainPlan(planning, { goal: options.goal });
  if (!first.ok) {
    phase.to('stopped');
    return { stopReason: 'error', plan: undefined, planningErrors: first.errors, iterations: 0, messages };
  }
  const firstPlan = first.plan;
  let requestId: string | undefined;
  if (options.approvePlan !== undefined && options.approvePlan !== false) {
    phase.to('awaiting_approval');
    const decision = await client.submitPlan(firstPlan, options.approvePlan === true ? {} : options.approvePlan);
    requestId = decision.requestId;
    if (!decision.approved) {
      logger.warn({ requestId, status: decision.status }, 'plan not approved');
      phase.to('stopped');
      return { stopReason: 'aborted', plan: firstPlan, iterations: 0, messages };
    }
  }
  phase.to('executing');
  const runner = new PlanRunner(firstPlan, { sink: client, logger, ...(requestId === undefined ? {} : { requestId }) });
  await runner.report();
  const end = (stopReason: StopReason, extra: Partial<AgentLoopResult> = {}): AgentLoopResult => {
    phase.to('stopped');
    return { stopReason, plan: runner.plan, iterations: breakers.iteration, messages, ...extra };
  };

  try {
    while (!runner.finished) {
      const step = runner.ready()[0];
      if (step === undefined) return end('error');
      await runner.start(step.id);
      say('user', `Step ${step.id}: ${step.description}`);

      for (;;) {
        // docs/spec/teams.md#shutdown: a teammate that approved a shutdown stops between turns, never inside a tool call.
        if (client.shutdownApproved !== undefined) return end('shutdown');
        const { iteration, exceeded } = breakers.nextIteration();
        if (exceeded) {
          logger.warn({ code: 'MAX_ITER', iteration }, 'iteration limit reached; a person must intervene');
          const stopped = await client.hook('stop', { stop_reason: 'MAX_ITER', loop: { iteration }, plan_step: step.id });
          // The loop ends whatever the answer: a block of the stop is answered with abort.
          await answerSignals(client, stopped.signals, { block: 'abort', prompt: 'acknowledge' });
          return end('MAX_ITER', askForIntervention(options, logger, { iteration, stepId: step.id, description: step.description }));
        }
        await takePushedSignals(client, pushed, say, logger);
        const action = await model.next({ step: runner.step(step.id), messages: visible() });

        if (action.type === 'tool_call') {
          say('assistant', JSON.stringify({ tool: action.tool, input: action.input }));
          if (client.shutdownApproved !== undefined) return end('shutdown');
          const call = () => callTool(options, breakers, phase, action, { iteration, stepId: step.id });
          say('tool', await (client.trackToolCall === undefined ? call() : client.trackToolCall(action.tool, call)));
          continue;
        }
        say('assistant', action.text);
        const control = await readControlSignal(action.text, { stepId: step.id, sink: client, logger, ...(options.controlMode === undefined ? {} : { mode: options.controlMode }) });
        if (control.kind === 'none') continue;
        const kind = control.kind === 'structured' ? control.envelope.control : control.control;
        if (kind === 'replan') {
          const reason = control.kind === 'structured' ? (control.envelope.reason ?? undefined) : undefined;
          phase.to('planning');
          const revised = await obtainPlan(planning, { current: runner.plan, reason });
          if (!revised.ok) return end('error', { planningErrors: revised.errors });
          await runner.replan(revised.plan);
          phase.to('executing');
          break;
        }
        if (options.verify !== undefined) {
          const result = await reportVerification(client, await options.verify(runner.step(step.id)), { stepId: step.id, logger });
          if (!result.ok) {
            say('user', `Verification failed: ${result.summary}${result.suggestion === undefined ? '' : ` ${result.suggestion}`}`);
            continue;
          }
        }
        await runner.complete(step.id);
        break;
      }
    }
  } catch (error) {
    // An approved shutdown closes the client; whatever was under way then fails with E_CLOSED.
    // The tool that was about to run did not (its pre-tool-use hook failed): a clean stop.
    if (client.shutdownApproved !== undefined) return end('shutdown');
    throw error;
  }
  return end('completed');
  }
}

/**
 * Puts the signals pushed since the last turn before the model and answers them: a prompt (an
 * operator's warning) as `acknowledge`, an aid (suggestions) as `suggestion_deferred` — the model
 * read them, and may act on them in its next turns. A block or control never comes as a push (they
 * are hook decisions); one that does is logged and left alone. An answer that fails is logged:
 * the signal stays unanswered in the signal log, and a new connection gets it again.
 */
async function takePushedSignals(client: AgentLoopClient, pushed: Signal[], say: (role: ChatMessage['role'], content: string) => void, logger: Logger): Promise<void> {
  for (const signal of pushed.splice(0)) {
    const { payload, header } = signal;
    let answer: LoopAnswer;
    if (payload.level === 'prompting') {
      say('user', `OPERATOR NOTE from ${header.source} (${payload.severity}): ${payload.message}${payload.suggestions.map((s) => `\n- ${s}`).join('')}`);
      answer = 'acknowledge';
    } else if (payload.level === 'aiding') {
      say('user', `SUGGESTION from ${header.source}: ${payload.context}${payload.suggestions.map((s) => `\n- ${s.type}: ${s.description}`).join('')}`);
      answer = 'suggestion_deferred';
    } else {
      logger.warn({ signalId: header.id, intensity: header.intensity }, 'ignoring a pushed signal that only a hook decision can carry');
      continue;
    }
    try {
      await client.respond(signal, answer);
    } catch (error) {
      logger.warn({ signalId: header.id, error: error instanceof Error ? error.message : String(error) }, 'answering a pushed signal failed');
    }
  }
}

/**
 * One tool call with its hooks: the stutter breaker, `pre-tool-use` (block → not run, reason to
 * the model; control → input rewritten; prompt → warnings to the model), the tool, `post-tool-use`
 * (aid → suggestions to the model). Returns the text the model sees as the tool's result.
 */
async function callTool(
  options: AgentLoopOptions,
  breakers: LoopBreakers,
  phase: Phase,
  action: Extract<ModelAction, { type: 'tool_call' }>,
  at: { iteration: number; stepId: string },
): Promise<string> {
  // docs/spec/plans.md#loop-phases: nothing runs before a valid plan is in force.
  if (phase.current !== 'executing') throw new Error(`agent loop: a tool call in the ${phase.current} phase`);
  const { client } = options;
  const stutter = breakers.checkToolCall(action.tool, action.input);
  if (!stutter.ok) return stutter.message;

  const loop = { iteration: at.iteration };
  const pre = await client.hook('pre-tool-use', { tool: { name: action.tool, input: action.input }, loop, plan_step: at.stepId });
  if (!pre.allowed) {
    // Every block is answered, and a modification of a call that does not run is not applied.
    await answerSignals(client, pre.signals, { block: 'retry_after_fix', control: 'reject_modification' });
    return `BLOCKED by ${pre.block.source}: ${pre.block.reason}${pre.block.resolutionPath.map((step) => `\n- ${step}`).join('')}`;
  }
  let input: JsonObject;
  try {
    input = applyModifications(action.input, pre.modifications);
  } catch (error) {
    // A change that cannot be applied must not let the unchanged call run (fail closed).
    await answerSignals(client, pre.signals, { control: 'reject_modification', prompt: 'acknowledge' });
    return `BLOCKED: ${(error as Error).message}`;
  }
  const notes = [...pre.warnings.map((warning) => `WARNING: ${warning}`)];
  if (pre.modifications.length > 0) notes.push(`NOTE: input changed by the control plane: ${pre.modifications.map((m) => `${m.target} → ${JSON.stringify(m.updated)} (${m.reason})`).join('; ')}`);
  await answerSignals(client, pre.signals, { control: 'accept_modification', prompt: 'acknowledge' });

  const tool = options.tools[action.tool];
  const outcome: ToolOutcome = tool === undefined ? { ok: false, code: 'E_UNKNOWN_TOOL', error: `no tool named ${action.tool}` } : await tool(input);
  const text = outcome.ok ? outcome.output : `${outcome.code ?? 'ERROR'}: ${outcome.error}`;

  const post = await client.hook('post-tool-use', { tool: { name: action.tool, input, ok: outcome.ok, output: text.slice(0, 4000) }, loop, plan_step: at.stepId });
  for (const signal of post.signals) {
    if (signal.header.intensity !== 'aid' || signal.payload.level !== 'aiding') continue;
    notes.push(`SUGGESTION: ${JSON.stringify(signal.payload.suggestions)}`);
    await client.respond(signal, 'suggestion_deferred');
  }
  return [text, ...notes].join('\n');
}

/**
 * Answers the signals of a decision with the action given for their intensity. Block and control
 * must be answered (the gateway refuses the session's next hooks with `E_SIGNAL_UNANSWERED` once
 * their grace ends), so the loop answers them before its next hook; an approval wait is answered
 * by the approval and left alone.
 */
async function answerSignals(client: AgentLoopClient, signals: readonly Signal[], actions: Partial<Record<Signal['header']['intensity'], LoopAnswer>>): Promise<void> {
  for (const signal of signals) {
    const action = actions[signal.header.intensity];
    if (action === undefined || (signal.payload.level === 'blocking' && signal.payload.resolution?.kind === 'await_approval')) continue;
    await client.respond(signal, action);
  }
}

/** Opens the intervention request of a `MAX_ITER` stop, unless the options or the client say not to. */
function askForIntervention(
  options: AgentLoopOptions,
  logger: Logger,
  at: { iteration: number; stepId: string; description: string },
): Pick<AgentLoopResult, 'intervention'> {
  const { client } = options;
  if (options.intervention === false || client.requestIntervention === undefined) return {};
  const requestOptions = options.intervention ?? {};
  const requestId = requestOptions.requestId ?? `req_intervention_${globalThis.crypto.randomUUID()}`;
  const decision = client.requestIntervention(
    {
      reason: 'MAX_ITER',
      summary: `Stopped after ${at.iteration - 1} iterations on step ${at.stepId} (${at.description}) without finishing it.`.slice(0, 2000),
      iteration: at.iteration,
      plan_step: at.stepId,
    },
    { ...requestOptions, requestId },
  );
  // The application may never look at the decision; a failure to open is logged, not unhandled.
  decision.catch((error: unknown) => logger.warn({ requestId, error: error instanceof Error ? error.message : String(error) }, 'the intervention request failed'));
  return { intervention: { requestId, decision } };
}
