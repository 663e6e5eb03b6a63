/**
 * The synthetic agents' whole workload and its three ledger tracks: who the agents are (one team:
 * hook agents who also message each other, planners, and the lead who approves their plans),
 * starting the traffic of each track, and draining it at the end, bounded even when something
 * never settles.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentIdentity } from '@ahp/protocol';
import type { Logger } from '@ahp/sdk';
import type { AgentFleet } from './agent-fleet.js';
import { ApprovalLedger, type ApprovalSummary } from './approval-ledger.js';
import { ApprovalTraffic, answerFailureLogger } from './approval-traffic.js';
import type { TrackCapabilities } from './capabilities.js';
import { HookLedger } from './hook-ledger.js';
import { HookTraffic } from './hook-traffic.js';
import { InboxLedger, type InboxSummary } from './inbox-ledger.js';
import { InboxTraffic } from './inbox-traffic.js';
import type { ChaosOptions } from './options.js';

const TEAM = 'chaos';
const LEAD = 'lead';
const HOOK_AGENT_PREFIX = 'agent-';
const PLANNER_PREFIX = 'planner-';
/** The SDK's default `requestDeadlineMs`: how long `send()` waits for its ack. */
const SDK_REQUEST_DEADLINE_MS = 30_000;

/** See the module comment. */
export class Traffic {
  readonly hooks = new HookLedger();
  readonly approvals = new ApprovalLedger();
  readonly inbox = new InboxLedger();
  readonly #options: ChaosOptions;
  #hookTraffic: HookTraffic | undefined;
  #approvalTraffic: ApprovalTraffic | undefined;
  #inboxTraffic: InboxTraffic | undefined;

  constructor(options: ChaosOptions) {
    this.#options = options;
  }

  /** The run's agents, all in one team. */
  identities(): AgentIdentity[] {
    const member = (id: string, role: 'lead' | 'teammate'): AgentIdentity => ({ id, name: `Chaos ${id}`, team: TEAM, role });
    return [
      ...Array.from({ length: this.#options.agents }, (_, i) => member(`${HOOK_AGENT_PREFIX}${String(i + 1).padStart(2, '0')}`, 'teammate')),
      ...Array.from({ length: this.#options.tracks.planners }, (_, i) => member(`${PLANNER_PREFIX}${i + 1}`, 'teammate')),
      member(LEAD, 'lead'),
    ];
  }

  /** The SDK logger an agent's client needs: the lead's reports failed answers to the approvals ledger. */
  loggerFor(agentId: string): Logger | undefined {
    return agentId === LEAD ? answerFailureLogger(this.approvals) : undefined;
  }

  /** Starts the hook track, and the approvals and inbox tracks where the SDK has them. */
  start(fleet: AgentFleet, tracks: TrackCapabilities): void {
    const options = this.#options;
    const hookAgents = fleet.agents.filter((agent) => agent.id.startsWith(HOOK_AGENT_PREFIX));
    this.#hookTraffic = new HookTraffic({
      fleet,
      agents: hookAgents,
      ledger: this.hooks,
      seed: options.seed,
      workload: options.workload,
      lanes: options.lanes,
      hookDeadlineMs: options.agentDeadlineMs,
    });
    if (tracks.inbox.available) {
      this.#inboxTraffic = new InboxTraffic({ fleet, agents: hookAgents, ledger: this.inbox, seed: options.seed, intervalMs: options.tracks.messageIntervalMs });
    }
    if (tracks.approvals.available) {
      this.#approvalTraffic = new ApprovalTraffic({
        fleet,
        lead: fleet.agent(LEAD),
        planners: fleet.agents.filter((agent) => agent.id.startsWith(PLANNER_PREFIX)),
        ledger: this.approvals,
        seed: options.seed,
        intervalMs: options.tracks.planIntervalMs,
        deadlineMs: options.tracks.requestDeadlineMs,
      });
    }
    this.#hookTraffic.start();
    this.#inboxTraffic?.start();
    this.#approvalTraffic?.start();
  }

  /** Stops sending and waits for everything sent to settle; what never does is counted as hung or lost. */
  async drain(): Promise<void> {
    const { agentDeadlineMs, tracks, graceMs } = this.#options;
    const boundMs = Math.max(agentDeadlineMs, tracks.requestDeadlineMs, SDK_REQUEST_DEADLINE_MS + tracks.inboxDrainMs) + graceMs + 1_000;
    await Promise.race([
      Promise.all([this.#hookTraffic?.stop(), this.#approvalTraffic?.stop(), this.#inboxTraffic?.stop(tracks.inboxDrainMs)]),
      sleep(boundMs),
    ]);
  }

  /** The summaries of the approvals and inbox tracks that ran. */
  trackSummaries(now: number): { approvals?: ApprovalSummary; inbox?: InboxSummary } {
    return {
      ...(this.#approvalTraffic ? { approvals: this.approvals.summarize(now, this.#options.graceMs) } : {}),
      ...(this.#inboxTraffic ? { inbox: this.inbox.summarize() } : {}),
    };
  }
}
