/**
 * The synthetic agents' connections: one SDK client per agent, configured with every gateway URL
 * (failover) and starting at a different one, each behind a {@link WireTap}. What the agents do
 * with their clients — hooks, messages, plans — is up to the traffic drivers.
 */
import { connect, type AhpClient, type Logger } from '@ahp/sdk';
import { resolveTransport } from '@ahp/sdk/transport';
import type { AgentCredential } from '@ahp/stack';
import type { WireDecision } from './hook-ledger.js';
import type { GatewayDirectory } from './wire-tap.js';
import { WireTap } from './wire-tap.js';

/** Options of {@link AgentFleet.connect}. */
export interface FleetOptions {
  readonly credentials: readonly AgentCredential[];
  readonly directory: GatewayDirectory;
  /** Every decision frame any agent reads off the wire. */
  readonly onDecision: (decision: WireDecision) => void;
  /** The agent-side deadline of every hook. */
  readonly hookDeadlineMs: number;
  /** How long the first connection of an agent may take. */
  readonly connectTimeoutMs: number;
  /** The SDK logger of one agent's client (to observe what the SDK retries); silent when omitted. */
  readonly loggerFor?: (agentId: string) => Logger | undefined;
}

/** One connected agent. */
export interface FleetAgent {
  readonly id: string;
  readonly client: AhpClient;
  readonly tap: WireTap;
}

/** How an agent's client ended for good (it should never, during a run). */
export interface EndedAgent {
  readonly agent: string;
  readonly code: string;
  readonly message: string;
}

/** Connection counters of the fleet. */
export interface FleetStats {
  readonly agents: number;
  /** Sockets opened by all clients, first connections included. */
  readonly sockets: number;
  /** Reconnects that resumed the agent's session. */
  readonly sessionsResumed: number;
  /** Reconnects that got a new session instead. */
  readonly sessionsReplaced: number;
  readonly ended: readonly EndedAgent[];
}

/** See the module comment. Create with {@link AgentFleet.connect}. */
export class AgentFleet {
  readonly #agents: FleetAgent[];
  readonly #ended = new Map<string, EndedAgent>();
  #closing = false;
  #sessionsResumed = 0;
  #sessionsReplaced = 0;

  private constructor(agents: FleetAgent[]) {
    this.#agents = agents;
  }

  /** Connects every agent (in parallel) and resolves once all were welcomed. */
  static async connect(options: FleetOptions): Promise<AgentFleet> {
    const base = await resolveTransport();
    const agents: FleetAgent[] = [];
    const fleet = new AgentFleet(agents);
    try {
      await Promise.all(
        options.credentials.map(async ({ agent, token }, index) => {
          const tap = new WireTap({ base, resolve: (url) => options.directory.resolve(url), name: agent.id, onDecision: options.onDecision });
          // Every agent knows every gateway, but starts at a different one, as behind a load balancer.
          const urls = options.directory.urls;
          const logger = options.loggerFor?.(agent.id);
          const client = await connect({
            url: [...urls.slice(index % urls.length), ...urls.slice(0, index % urls.length)],
            token,
            transport: tap.factory,
            hookDeadlineMs: options.hookDeadlineMs,
            connectTimeoutMs: options.connectTimeoutMs,
            client: { name: 'ahp-chaos', version: '1' },
            ...(logger ? { logger } : {}),
          });
          agents.push(fleet.#watch({ id: agent.id, client, tap }));
        }),
      );
    } catch (error) {
      await fleet.close();
      throw error;
    }
    // Connection order is a race; socket drops pick agents by position, so fix the order.
    agents.sort((a, b) => a.id.localeCompare(b.id));
    return fleet;
  }

  /** The agents, by id order. */
  get agents(): readonly FleetAgent[] {
    return this.#agents;
  }

  /** The agent with this id. */
  agent(id: string): FleetAgent {
    const agent = this.#agents.find((candidate) => candidate.id === id);
    if (agent === undefined) throw new Error(`no agent ${id} in the fleet`);
    return agent;
  }

  /** Whether the agent's client ended for good. */
  hasEnded(id: string): boolean {
    return this.#ended.has(id);
  }

  /**
   * Terminates the current socket of `count` agents, starting at the one `pick` (0..1) designates
   * and going round. Returns the agents whose socket was dropped (an agent between sockets has none).
   */
  dropSockets(count: number, pick: number): string[] {
    const dropped: string[] = [];
    const start = Math.floor(pick * this.#agents.length);
    for (let i = 0; i < Math.min(count, this.#agents.length); i++) {
      const agent = this.#agents[(start + i) % this.#agents.length];
      if (agent?.tap.terminate()) dropped.push(agent.id);
    }
    return dropped;
  }

  /** The agents connected (welcomed) to each gateway id, right now. */
  connectedByGateway(): Map<string, string[]> {
    const connected = new Map<string, string[]>();
    for (const { id, client } of this.#agents) {
      const gatewayId = client.session?.gatewayId;
      if (client.state === 'open' && gatewayId !== undefined) connected.set(gatewayId, [...(connected.get(gatewayId) ?? []), id]);
    }
    return connected;
  }

  stats(): FleetStats {
    return {
      agents: this.#agents.length,
      sockets: this.#agents.reduce((sum, agent) => sum + agent.tap.sockets, 0),
      sessionsResumed: this.#sessionsResumed,
      sessionsReplaced: this.#sessionsReplaced,
      ended: [...this.#ended.values()],
    };
  }

  /** Closes every client. Idempotent. */
  async close(): Promise<void> {
    this.#closing = true;
    await Promise.allSettled(this.#agents.map((agent) => agent.client.close()));
  }

  #watch(agent: FleetAgent): FleetAgent {
    let reconnected = false;
    agent.client.on('session', (session) => {
      // The first welcome happened inside connect(), before this listener; every one seen here is a reconnect.
      reconnected = true;
      if (session.resumed) this.#sessionsResumed += 1;
      else this.#sessionsReplaced += 1;
    });
    agent.client.on('state', (change) => {
      if (change.state !== 'closed' || this.#closing) return;
      const error = change.error;
      this.#ended.set(agent.id, {
        agent: agent.id,
        code: error?.code ?? 'unknown',
        message: `${error?.message ?? 'closed'}${reconnected ? '' : ' (before any reconnect)'}`,
      });
    });
    return agent;
  }
}
