/**
 * The inbox track's traffic: every agent sends stamped messages to its teammates now and then,
 * and runs the idle loop, entering each message its application receives.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isAhpClientError } from '@ahp/sdk';
import type { AgentFleet, FleetAgent } from './agent-fleet.js';
import { messageStampOf, type InboxLedger, type MessageStamp } from './inbox-ledger.js';
import { Rng, type Range, type Seed } from './random.js';

/** Options of {@link InboxTraffic}. */
export interface InboxTrafficOptions {
  readonly fleet: AgentFleet;
  /** The agents that message each other (one team). */
  readonly agents: readonly FleetAgent[];
  readonly ledger: InboxLedger;
  readonly seed: Seed;
  /** Pause between two messages of one agent. */
  readonly intervalMs: Range;
}

/** How long one idle() call waits before the loop looks at its stop flag again. */
const IDLE_POLL_MS = 500;

/** See the module comment. */
export class InboxTraffic {
  readonly #options: InboxTrafficOptions;
  readonly #senders: Promise<void>[] = [];
  readonly #receivers: Promise<void>[] = [];
  #sending = true;
  #receiving = true;

  constructor(options: InboxTrafficOptions) {
    if (options.agents.length < 2) throw new RangeError('the inbox track needs at least two agents');
    this.#options = options;
  }

  start(): void {
    for (const agent of this.#options.agents) {
      this.#senders.push(this.#send(agent));
      this.#receivers.push(this.#receive(agent));
    }
  }

  /**
   * Stops sending; waits until every accepted message was received or `drainMs` passed (what is
   * still missing then is lost); then stops the idle loops.
   */
  async stop(drainMs: number): Promise<void> {
    this.#sending = false;
    await Promise.all(this.#senders);
    const until = Date.now() + drainMs;
    while (this.#options.ledger.outstanding > 0 && Date.now() < until) await sleep(100);
    this.#receiving = false;
    await Promise.all(this.#receivers);
  }

  async #send(agent: FleetAgent): Promise<void> {
    const { fleet, agents, ledger, seed, intervalMs } = this.#options;
    const others = agents.filter((other) => other.id !== agent.id);
    let seq = 0;
    while (this.#sending && !fleet.hasEnded(agent.id)) {
      seq += 1;
      const stamp: MessageStamp = { from: agent.id, seq };
      // Seeded per stamp, like the hooks: replaying a seed sends the same messages to the same agents.
      const rng = new Rng(seed).fork(`${agent.id}#${seq}`);
      const to = others[Math.floor(rng.next() * others.length)]?.id ?? agent.id;
      ledger.sent(stamp, to, Date.now());
      // A new socket while the call is pending means the SDK may have sent the frame twice.
      const sockets = agent.tap.sockets;
      try {
        await agent.client.send(to, `chaos message ${agent.id}#${seq}`, { metadata: { chaos: { from: agent.id, seq } } });
        ledger.accepted(stamp, Date.now(), agent.tap.sockets !== sockets);
      } catch (error) {
        ledger.failed(stamp, isAhpClientError(error) ? error.code : String(error), isAhpClientError(error), agent.tap.sockets !== sockets);
      }
      if (this.#sending) await sleep(rng.int(intervalMs));
    }
  }

  async #receive(agent: FleetAgent): Promise<void> {
    const { fleet, ledger } = this.#options;
    while (this.#receiving && !fleet.hasEnded(agent.id)) {
      let result;
      try {
        result = await agent.client.idle({ timeoutMs: IDLE_POLL_MS });
      } catch {
        return; // the client closed; the fleet reports why
      }
      if (result.kind === 'message') ledger.received(agent.id, messageStampOf(result.message.metadata), result.message.id, Date.now());
      if (result.kind === 'shutdown') return;
    }
  }
}
