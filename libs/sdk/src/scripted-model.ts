/**
 * A model that plays a fixed script: for tests and demos of {@link runAgentLoop}, with no weights
 * and no network. It records what it was shown, so a test can assert on the conversation.
 */
import type { Plan } from '@ahp/protocol';
import type { AgentModel, ModelAction } from './agent-loop.js';
import type { ChatMessage } from './history.js';

/** The script: the plans to hand out, and the actions to take, in order. */
export interface ModelScript {
  /** The first plan, then one per `replan`, in order. */
  readonly plans: readonly Plan[];
  /** Returned by `next()` in order; running out throws, so a test sees a loop that went too far. */
  readonly actions: readonly ModelAction[];
}

/** A {@link AgentModel} following `script`, with `seen`: the messages each turn was shown. */
export function scriptedModel(script: ModelScript): AgentModel & { readonly seen: readonly (readonly ChatMessage[])[] } {
  const plans = [...script.plans];
  const actions = [...script.actions];
  const seen: ChatMessage[][] = [];
  const nextPlan = async (): Promise<Plan> => {
    const plan = plans.shift();
    if (plan === undefined) throw new Error('scripted model: no plan left');
    return structuredClone(plan);
  };
  return {
    seen,
    plan: nextPlan,
    replan: nextPlan,
    async next({ messages }) {
      seen.push([...messages]);
      const action = actions.shift();
      if (action === undefined) throw new Error('scripted model: no action left');
      return action;
    },
  };
}
