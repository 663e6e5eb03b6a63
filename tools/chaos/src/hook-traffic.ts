/**
 * The hook track's traffic: each agent runs a few lanes that send stamped hooks one after the
 * other, entering the hook in the ledger before it is sent and how it settled after. Like a
 * well-behaved agent, each answers the block and control signals it must answer: an agent that
 * leaves one unanswered past its grace has its next hooks refused (E_SIGNAL_UNANSWERED), and a
 * run whose hooks are mostly refused at the door would test the door, not the decision path.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { actionsForIntensity, mustAnswer, type Signal } from '@ahp/protocol';
import { isAhpClientError } from '@ahp/sdk';
import type { AgentFleet, FleetAgent } from './agent-fleet.js';
import type { HookLedger, HookStamp } from './hook-ledger.js';
import type { Seed } from './random.js';
import { decisionFingerprint } from './wire-tap.js';
import { planHook, type WorkloadOptions } from './workload.js';

/** Options of {@link HookTraffic}. */
export interface HookTrafficOptions {
  readonly fleet: AgentFleet;
  /** The agents that send hooks. */
  readonly agents: readonly FleetAgent[];
  readonly ledger: HookLedger;
  /** The run's seed: with the stamp, it fixes what each hook asks (see workload.ts). */
  readonly seed: Seed;
  readonly workload: WorkloadOptions;
  /** Hooks each agent keeps outstanding at once (one per lane). */
  readonly lanes: number;
  /** The agent-side deadline of every hook. */
  readonly hookDeadlineMs: number;
}

/** See the module comment. */
export class HookTraffic {
  readonly #options: HookTrafficOptions;
  readonly #lanes: Promise<void>[] = [];
  readonly #seq = new Map<string, number>();
  #stopping = false;

  constructor(options: HookTrafficOptions) {
    this.#options = options;
  }

  /** Starts every agent's lanes. */
  start(): void {
    for (const agent of this.#options.agents) {
      for (let lane = 0; lane < this.#options.lanes; lane++) this.#lanes.push(this.#runLane(agent));
    }
  }

  /** Stops sending new hooks; resolves when every hook sent has settled (bounded by the agent deadline). */
  async stop(): Promise<void> {
    this.#stopping = true;
    await Promise.all(this.#lanes);
  }

  async #runLane(agent: FleetAgent): Promise<void> {
    const { fleet, ledger, workload, seed, hookDeadlineMs } = this.#options;
    while (!this.#stopping && !fleet.hasEnded(agent.id)) {
      const seq = (this.#seq.get(agent.id) ?? 0) + 1;
      this.#seq.set(agent.id, seq);
      const stamp: HookStamp = { agent: agent.id, seq };
      const plan = planHook(seed, stamp, workload);
      const hookId = randomUUID();
      ledger.sent({
        ...stamp,
        hookId,
        trigger: plan.trigger,
        allowedByOracles: plan.allowedByOracles,
        allowedByPolicy: plan.allowedByPolicy,
        sentAt: Date.now(),
        deadlineMs: hookDeadlineMs,
      });
      let toAnswer: readonly Signal[] = [];
      try {
        const result = await agent.client.hook(plan.trigger, plan.context, { hookId, deadlineMs: hookDeadlineMs });
        ledger.settled(stamp, {
          kind: 'decision',
          at: Date.now(),
          allowed: result.allowed,
          decidedBy: result.decidedBy,
          fingerprint: decisionFingerprint(result.decision),
          ...(result.error ? { errorCode: result.error.code } : {}),
        });
        toAnswer = result.signals;
      } catch (error) {
        ledger.settled(
          stamp,
          isAhpClientError(error)
            ? { kind: 'error', at: Date.now(), code: error.code, typed: true }
            : { kind: 'error', at: Date.now(), code: error instanceof Error ? error.message : String(error), typed: false },
        );
      }
      await this.#answer(agent, toAnswer);
      if (!this.#stopping) await sleep(plan.thinkMs);
    }
  }

  /**
   * Answers what must be answered, with the first action the intensity allows. An answer lost to
   * a fault is left lost: the refusal that follows is the enforcement the run should see.
   */
  async #answer(agent: FleetAgent, signals: readonly Signal[]): Promise<void> {
    for (const signal of signals) {
      const action = mustAnswer(signal) ? actionsForIntensity(signal.header.intensity)[0] : undefined;
      if (action === undefined) continue;
      try {
        await agent.client.respond(signal, action);
      } catch (error) {
        if (!isAhpClientError(error)) throw error;
      }
    }
  }
}
