/**
 * A model that plays a fixed script: for tests and demos of {@link runAgentLoop}, with no weights
 * and no network. It records what it was shown, so a test can assert on the conversation.
 */
import type { Plan } from '@ahp/protocol/wire';
import type { AgentModel, ModelAction } from './run-agent-loop.js';
import type { ChatMessage } from './history.js';

/** The script: the plans to hand out (as objects or as template answers), and the actions to take, in order. */
export interface ModelScript {
  /** The first plan, then one per `replan`, in order: for the `model` planner. */
  readonly plans?: readonly Plan[];
  /**
   * Text answers of `complete()`, in order — e.g. `[PLAN]` templates, invalid ones included. When
   * given, the model has `complete()` and the loop plans with the template by default.
   */
  readonly texts?: readonly string[];
  /** Returned by `next()` in order; running out throws, so a test sees a loop that went too far. */
  readonly actions: readonly ModelAction[];
}

/** A {@link AgentModel} following `script`, with `seen`: the messages each turn (`next` or `complete`) was shown. */
export function scriptedModel(script: ModelScript): AgentModel & { readonly seen: readonly (readonly ChatMessage[])[] } {
  const plans = [...(script.plans ?? [])];
  const texts = script.texts === undefined ? undefined : [...script.texts];
  const actions = [...script.actions];
  const seen: ChatMessage[][] = [];
  const nextPlan = async (): Promise<Plan> => {
    const plan = plans.shift();
    if (plan === undefined) throw new Error('scripted model: no plan left');
    return structuredClone(plan);
  };
  const complete =
    texts === undefined
      ? {}
      : {
          async complete({ messages }: { readonly messages: readonly ChatMessage[] }): Promise<string> {
            seen.push([...messages]);
            const text = texts.shift();
            if (text === undefined) throw new Error('scripted model: no text left');
            return text;
          },
        };
  return {
    seen,
    plan: nextPlan,
    replan: nextPlan,
    ...complete,
    async next({ messages }) {
      seen.push([...messages]);
      const action = actions.shift();
      if (action === undefined) throw new Error('scripted model: no action left');
      return action;
    },
  };
}
