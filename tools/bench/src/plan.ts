/**
 * How much each mode measures. `smoke` exercises every phase once with tiny counts (CI runs it to
 * see the tool still works; its numbers mean nothing); `quick` gives usable numbers in under two
 * minutes; `full` is the run BENCHMARKS.md reports.
 */

export type BenchMode = 'smoke' | 'quick' | 'full';

export interface BenchPlan {
  mode: BenchMode;
  /** PING round trips. */
  redisPings: number;
  /** Echo round trips one at a time (ws, nest). */
  echoRoundTrips: number;
  /** Echo throughput window, ms. */
  echoThroughputMs: number;
  /** Connections and messages in flight for echo throughput. */
  echoConnections: number;
  echoInFlight: number;
  /** BullMQ jobs one at a time. */
  bullmqRoundTrips: number;
  /** BullMQ throughput window, ms, and jobs in flight. */
  bullmqThroughputMs: number;
  bullmqInFlight: number;
  /** Spawned command hooks. */
  spawnRuns: number;
  /** In-process evaluations. */
  evalRuns: number;
  /** In-process evaluations per step of the `rules` phase. */
  rulesRuns: number;
  /** SDK agents (connections) driving the product. */
  agents: number;
  /** Decisions to warm up (JIT, connection pools) before measuring; not reported. */
  warmupDecisions: number;
  /** Decisions one at a time. */
  lowLoadDecisions: number;
  /** Closed-loop saturation window, ms, and decisions in flight (also the worker-scaling load). */
  saturationMs: number;
  saturationInFlight: number;
  /** Length of each open-loop step of the sustained-rate search, ms, and the most steps. */
  stepMs: number;
  maxSteps: number;
  /** Open-loop run at half the sustained rate, ms. */
  halfLoadMs: number;
  /** Worker process counts to compare, and each one's window, ms. */
  scalingWorkers: number[];
  scalingMs: number;
  /**
   * The gateway's ping interval in the connection phases (`AHP_HEARTBEAT_MS`); production's
   * default is 15 s. Shorter in the short modes so a measurement still spans a few heartbeats.
   */
  connectionHeartbeatMs: number;
  /** Idle connections for the memory figure. */
  idleConnections: number;
  /** Connected-agent counts to try for capacity, ascending; the phase stops at the first failure. */
  capacitySteps: number[];
  /** How long each capacity step sends decisions, ms; at least one gateway heartbeat interval. */
  capacityHoldMs: number;
  /** Approvals decided across gateways, one at a time. */
  approvals: number;
  /** Agents connected for the console phase (the fleet the page lists), and how often its page load and its search are timed. */
  consoleAgents: number;
  consoleSamples: number;
  /** CPU-profiling window (gateway and workers under saturation), ms; 0 skips the phase. */
  profileMs: number;
  /** Well-behaved agents of the noisy-neighbour phase, their steady total rate (/s) and each window, ms. */
  noisyAgents: number;
  noisyRate: number;
  noisyWindowMs: number;
  /** MCP tools/call measured each way (direct, through the gateway), and the workers behind the gateway. */
  mcpCalls: number;
  mcpWorkers: number;
  /**
   * The shards phase: each side's flat-out window (one Redis, then a cluster), ms, and the
   * decisions in flight; 0 skips the phase (smoke: a cluster and two more stacks take longer than
   * the whole smoke run).
   */
  shardsMs: number;
  shardsInFlight: number;
  /** Masters of the shards phase's cluster. */
  shardsMasters: number;
}

const SMOKE: BenchPlan = {
  mode: 'smoke',
  redisPings: 50,
  echoRoundTrips: 50,
  echoThroughputMs: 300,
  echoConnections: 2,
  echoInFlight: 16,
  bullmqRoundTrips: 20,
  bullmqThroughputMs: 500,
  bullmqInFlight: 32,
  spawnRuns: 2,
  evalRuns: 50,
  rulesRuns: 100,
  agents: 4,
  warmupDecisions: 10,
  lowLoadDecisions: 30,
  saturationMs: 800,
  saturationInFlight: 32,
  stepMs: 600,
  maxSteps: 2,
  halfLoadMs: 600,
  scalingWorkers: [1, 2],
  scalingMs: 600,
  connectionHeartbeatMs: 1000,
  idleConnections: 100,
  capacitySteps: [100],
  capacityHoldMs: 1500,
  approvals: 3,
  consoleAgents: 50,
  consoleSamples: 2,
  mcpCalls: 10,
  mcpWorkers: 1,
  shardsMs: 0,
  shardsInFlight: 16,
  shardsMasters: 3,
  profileMs: 800,
  noisyAgents: 8,
  noisyRate: 40,
  noisyWindowMs: 1200,
};

const QUICK: BenchPlan = {
  mode: 'quick',
  redisPings: 2000,
  echoRoundTrips: 2000,
  echoThroughputMs: 1500,
  echoConnections: 4,
  echoInFlight: 64,
  bullmqRoundTrips: 600,
  bullmqThroughputMs: 2500,
  bullmqInFlight: 256,
  spawnRuns: 15,
  evalRuns: 3000,
  rulesRuns: 3000,
  agents: 32,
  warmupDecisions: 300,
  lowLoadDecisions: 800,
  saturationMs: 3000,
  saturationInFlight: 256,
  stepMs: 2000,
  maxSteps: 5,
  halfLoadMs: 3000,
  scalingWorkers: [1, 2, 4],
  scalingMs: 2000,
  connectionHeartbeatMs: 4000,
  idleConnections: 2000,
  capacitySteps: [2000],
  capacityHoldMs: 5000,
  approvals: 50,
  consoleAgents: 5000,
  consoleSamples: 10,
  mcpCalls: 300,
  mcpWorkers: 2,
  shardsMs: 3000,
  shardsInFlight: 64,
  shardsMasters: 3,
  profileMs: 0,
  noisyAgents: 64,
  noisyRate: 256,
  noisyWindowMs: 4000,
};

const FULL: BenchPlan = {
  mode: 'full',
  redisPings: 20_000,
  echoRoundTrips: 20_000,
  echoThroughputMs: 8000,
  echoConnections: 8,
  echoInFlight: 128,
  bullmqRoundTrips: 5000,
  bullmqThroughputMs: 10_000,
  bullmqInFlight: 256,
  spawnRuns: 200,
  evalRuns: 30_000,
  rulesRuns: 20_000,
  agents: 64,
  warmupDecisions: 2000,
  lowLoadDecisions: 10_000,
  saturationMs: 10_000,
  saturationInFlight: 256,
  stepMs: 10_000,
  maxSteps: 10,
  halfLoadMs: 20_000,
  scalingWorkers: [1, 2, 4],
  scalingMs: 10_000,
  connectionHeartbeatMs: 15_000,
  idleConnections: 10_000,
  capacitySteps: [5000, 10_000, 20_000, 30_000, 40_000],
  capacityHoldMs: 35_000,
  approvals: 500,
  consoleAgents: 5000,
  consoleSamples: 20,
  mcpCalls: 2000,
  mcpWorkers: 2,
  shardsMs: 10_000,
  shardsInFlight: 128,
  shardsMasters: 3,
  profileMs: 15_000,
  noisyAgents: 64,
  noisyRate: 256,
  noisyWindowMs: 10_000,
};

const PLANS: Readonly<Record<BenchMode, BenchPlan>> = { smoke: SMOKE, quick: QUICK, full: FULL };

/** The plan of a mode (a copy, so a caller's overrides stay its own). */
export function planFor(mode: BenchMode): BenchPlan {
  return structuredClone(PLANS[mode]);
}
