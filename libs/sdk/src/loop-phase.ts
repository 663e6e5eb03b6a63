/**
 * The phases of the reference loop (docs/spec/plans.md#loop-phases: an explicit state machine, with a PLANNING
 * state before execution) and the only moves between them.
 */

/**
 * Where the loop stands. `planning`: the model writes (or revises) the plan and no tool may run;
 * `awaiting_approval`: the plan waits for its approver; `executing`: plan steps run, the only
 * state in which tools are called; `stopped`: the loop returned.
 */
export type AgentLoopPhase = 'planning' | 'awaiting_approval' | 'executing' | 'stopped';

/** The transitions the loop may take; anything else is a bug in the loop and throws. */
const PHASE_MOVES: Readonly<Record<AgentLoopPhase, readonly AgentLoopPhase[]>> = {
  planning: ['awaiting_approval', 'executing', 'stopped'],
  awaiting_approval: ['executing', 'stopped'],
  executing: ['planning', 'stopped'],
  stopped: [],
};

/** The loop's phase, with its transition rules; reports every change to the listener. */
export class Phase {
  #current: AgentLoopPhase = 'planning';
  readonly #listener: ((phase: AgentLoopPhase) => void) | undefined;

  constructor(listener: ((phase: AgentLoopPhase) => void) | undefined) {
    this.#listener = listener;
    listener?.('planning');
  }

  get current(): AgentLoopPhase {
    return this.#current;
  }

  to(next: AgentLoopPhase): void {
    if (!PHASE_MOVES[this.#current].includes(next)) throw new Error(`agent loop: no move from ${this.#current} to ${next}`);
    this.#current = next;
    this.#listener?.(next);
  }
}
