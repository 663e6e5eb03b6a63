/**
 * The approvals track's traffic: planner agents submit plans to the team's lead one after the
 * other, and the lead's application approves every plan it is shown. Both ends are entered in
 * the ledger, and so is every answer of the lead the SDK reports as failed (it then shows the
 * request again, on purpose).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Plan } from '@ahp/protocol';
import { isAhpClientError, silentLogger, type Logger } from '@ahp/sdk';
import type { AgentFleet, FleetAgent } from './agent-fleet.js';
import type { ApprovalLedger } from './approval-ledger.js';
import { Rng, type Range, type Seed } from './random.js';

/** Options of {@link ApprovalTraffic}. */
export interface ApprovalTrafficOptions {
  readonly fleet: AgentFleet;
  /** The team's lead: it reviews every plan. */
  readonly lead: FleetAgent;
  readonly planners: readonly FleetAgent[];
  readonly ledger: ApprovalLedger;
  readonly seed: Seed;
  /** Pause between two plans of one planner. */
  readonly intervalMs: Range;
  /** Each request's `deadline_ms`: undecided after this long, it expires (and counts as lost). */
  readonly deadlineMs: number;
}

/** The plan every planner submits; its content does not matter to the run. */
const PLAN: Plan = {
  title: 'Chaos plan',
  steps: [
    { id: 's1', description: 'Look around', dependencies: [], status: 'pending', tools_expected: ['read'] },
    { id: 's2', description: 'Change something', dependencies: ['s1'], status: 'pending', tools_expected: ['edit'] },
  ],
};

/**
 * The SDK logger for the lead's client: it reports an answer that failed, after which the SDK
 * shows the request to the application again — a retry the ledger must not count as a duplicate.
 */
export function answerFailureLogger(ledger: ApprovalLedger): Logger {
  return {
    ...silentLogger,
    warn: (fields, message) => {
      const requestId = fields['requestId'];
      if (message === 'answering a request failed' && typeof requestId === 'string') ledger.answerFailed(requestId);
    },
  };
}

/** See the module comment. */
export class ApprovalTraffic {
  readonly #options: ApprovalTrafficOptions;
  readonly #loops: Promise<void>[] = [];
  #stopping = false;

  constructor(options: ApprovalTrafficOptions) {
    this.#options = options;
  }

  start(): void {
    const { lead, ledger } = this.#options;
    lead.client.onRequest('plan_approval', (request) => {
      ledger.reviewed(request.request_id, Date.now());
      return { approve: true, feedback: 'chaos run: approved' };
    });
    for (const planner of this.#options.planners) this.#loops.push(this.#submit(planner));
  }

  /** Stops submitting; resolves when every submitted plan has settled at its planner (bounded by the deadline). */
  async stop(): Promise<void> {
    this.#stopping = true;
    await Promise.all(this.#loops);
  }

  async #submit(planner: FleetAgent): Promise<void> {
    const { fleet, lead, ledger, seed, intervalMs, deadlineMs } = this.#options;
    let seq = 0;
    while (!this.#stopping && !fleet.hasEnded(planner.id)) {
      seq += 1;
      const requestId = `req_chaos_${planner.id}_${seq}`;
      ledger.submitted(requestId, planner.id, Date.now(), deadlineMs);
      try {
        const decision = await planner.client.submitPlan(PLAN, { target: lead.id, requestId, deadlineMs });
        ledger.settled(requestId, Date.now(), decision.status);
      } catch (error) {
        ledger.settled(requestId, Date.now(), isAhpClientError(error) ? error.code : String(error), isAhpClientError(error));
      }
      if (!this.#stopping) await sleep(new Rng(seed).fork(requestId).int(intervalMs));
    }
  }
}
