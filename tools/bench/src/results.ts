/**
 * The shape of `results/latest.json`: everything one run measured, with the conditions it was
 * measured under. All latencies are in milliseconds, rates per second, sizes in bytes unless the
 * field name says otherwise.
 */
import type { BenchMode } from './plan.js';
import type { ProfileSummary } from './profile/cpuprofile.js';
import type { CommandsPerOperation } from './redis/commandstats.js';
import type { ShardSpread } from './redis/shard-share.js';
import type { TargetResult } from './report/targets.js';
import type { AbuseMode, AbuseReport } from './shared/abuse.js';
import type { MemoryReading } from './shared/memory-probe-line.js';
import type { LatencySummary } from './stats/latency.js';
import type { CpuPerOperation, CpuWindow } from './system/cpu-meter.js';
import type { FileLimitReport } from './system/fd-limit.js';
import type { MachineInfo, Versions } from './system/machine.js';

/** A latency figure and the failures beside it. */
export interface Measured {
  latency: LatencySummary;
  errors: number;
  errorCodes: Record<string, number>;
}

/** One side of the shadow phase: one-at-a-time latency (all its windows), CPU per decision in flight (mean of its windows). */
export interface ShadowCostSide {
  decision: Measured;
  cpuPerDecisionMs: number;
  cpuPerDecisionByProcess: { name: string; ms: number }[];
  windows: { p50: number; cpuMs: number }[];
}

/** One side of the replay phase: one-at-a-time latency and CPU per decision (mean of its windows), the replays' pace. */
export interface ReplayContentionSide {
  decision: Measured;
  /** Every process; with replays, their own work is in it. */
  cpuPerDecisionMs: number;
  cpuPerDecisionByProcess: { name: string; ms: number }[];
  /** Hooks the replays read per second of the side's windows (0 without). */
  replayedPerSecond: number;
  windows: { p50: number; p99: number; cpuMs: number }[];
}

/** An echo baseline (`ws`, `nest`, `nestRaw`). */
export interface EchoBaseline {
  /** One message at a time on one connection. */
  roundTrip: Measured;
  /** Many messages in flight over several connections. */
  messagesPerSecond: number;
  messageBytes: number;
  cpu: CpuWindow;
}

export interface BullmqBaseline {
  /** One job at a time: add → worker → XADD → producer's XREAD. */
  roundTrip: Measured;
  maxJobsPerSecond: number;
  workers: number;
  concurrencyPerWorker: number;
  /** Redis commands per job at one job at a time, and at full load. */
  commandsPerJob: CommandsPerOperation;
  commandsPerJobLoaded: CommandsPerOperation;
  cpu: CpuWindow;
  /** CPU per job at the maximum rate. */
  cpuPerJob: CpuPerOperation;
}

/** One step of the sustained-rate search. */
export interface RateStepResult extends Measured {
  rate: number;
  /** Decisions completed per second of the step. */
  achievedRate: number;
  passed: boolean;
  /** The latest a request was sent after it was due (a saturated load generator shows here). */
  maxStartLagMs: number;
  cpu: CpuWindow;
}

export interface ScalingRow extends Measured {
  workers: number;
  decisionsPerSecond: number;
  cpu: CpuWindow;
  cpuPerDecision: CpuPerOperation;
  /** Which process limits throughput, in words, from the CPU figures. */
  bottleneck: string;
}

export interface MemoryResult {
  connections: number;
  connected: number;
  failed: number;
  heartbeatMs: number;
  before: MemoryReading;
  after: MemoryReading;
  rssPerConnection: number;
  heapPerConnection: number;
  /** Buffers outside the JS heap (sockets' buffers) per connection. */
  externalPerConnection: number;
}

export interface CapacityStep extends Measured {
  agents: number;
  connected: number;
  connectFailures: number;
  /** One decision per agent per minute. */
  rate: number;
  passed: boolean;
  cpu: CpuWindow;
}

export interface CapacityResult {
  p95LimitMs: number;
  steps: CapacityStep[];
  /** Most agents at which the decision p95 stayed within the limit with no errors; null if none. */
  maxAgents: number | null;
  /** Set when the machine caps how many connections the phase can try, and why. */
  ceiling?: { connections: number; reason: string };
}

/** The well-behaved agents' figures over one window of the noisy-neighbour phase. */
export interface NoisyWindow extends Measured {
  /** The abuse running beside them; null for the quiet baseline. */
  abuse: AbuseMode | null;
  /** The gateway's largest resident set seen during the window (sampled every 50 ms). */
  gatewayPeakRssBytes: number;
  /** What the abusive client saw: how its frames were answered, how it was closed or refused. */
  abuser?: AbuseReport;
}

/** One abuse, on a stack of its own: the same agents alone first, then beside the abuser. */
export interface NoisyRun {
  abuse: AbuseMode;
  quiet: NoisyWindow;
  abused: NoisyWindow;
}

export interface NoisyNeighbourResult {
  agents: number;
  /** The well-behaved agents' total rate, decisions/s. */
  rate: number;
  windowMs: number;
  runs: NoisyRun[];
}

export type ApprovalsResult = { status: 'skipped'; reason: string } | { status: 'measured'; latency: Measured };

/** The ops console at fleet scale (phases/console-scale.ts): the fleet page and a search in Chromium, each beside the operator API answering the same query. */
export type ConsoleScaleMeasured = {
  status: 'measured';
  agents: number;
  /** The Chromium binary driven. */
  browser: string;
  pageLoad: { browser: LatencySummary; api: LatencySummary };
  search: { browser: LatencySummary; api: LatencySummary };
  /** The goals (fleet page ≤ 2 s, search ≤ 500 ms): reported beside the figures, never asserted. */
  goalsMs: { pageLoad: number; search: number };
};
export type ConsoleScaleResult = { status: 'skipped'; reason: string } | ConsoleScaleMeasured;

/** One process's CPU profile, summarised over one load window. */
export interface ProcessProfile {
  process: string;
  file: string;
  /** The load the window ran: flat out, or an open loop at a fixed rate. */
  load: { kind: 'closed'; inFlight: number } | { kind: 'open'; rate: number };
  /** Decisions per second completed in the window. */
  decisionsPerSecond: number;
  summary: ProfileSummary;
}

/** How a phase went. */
export interface PhaseRecord {
  name: string;
  status: 'ok' | 'error';
  seconds: number;
  error?: string;
}

export interface BenchResults {
  tool: '@ahp/bench';
  schemaVersion: 1;
  mode: BenchMode;
  command: string;
  startedAt: string;
  finishedAt?: string;
  durationSeconds?: number;
  machine: MachineInfo;
  versions: Versions;
  fileLimit: FileLimitReport;
  workload: {
    trigger: string;
    contextBytes: number;
    mix: string;
    /** What the product's workers evaluate with. */
    workerRules: string;
    /** What the eval baseline evaluates with. */
    evalRules?: string;
  };
  setup: { gateways: number; workers: number; workerConcurrency: number; agents: number };
  baselines: {
    redis?: { roundTrip: Measured };
    ws?: EchoBaseline;
    nest?: EchoBaseline;
    nestRaw?: EchoBaseline;
    bullmq?: BullmqBaseline;
    spawn?: { roundTrip: Measured; cpu: CpuWindow };
    eval?: { call: Measured; callsPerSecond: number; rules: string };
    /** The rule engine in-process with generated rules added (phases/rules.ts). */
    rules?: { runs: number; steps: RulesStep[] };
  };
  product: {
    decision?: { roundTrip: Measured; commandsPerDecision: CommandsPerOperation };
    saturation?: { decisionsPerSecond: number; concurrency: number; cpu: CpuWindow; cpuPerDecision: CpuPerOperation } & Measured;
    rateSteps?: RateStepResult[];
    maxSustainedPerSecond?: number | null;
    halfLoad?: { rate: number; commandsPerDecision: CommandsPerOperation; cpu: CpuWindow; maxStartLagMs: number } & Measured;
    scaling?: ScalingRow[];
    memory?: MemoryResult;
    capacity?: CapacityResult;
    /** `ahp hook claude-code` as a process per call against the gateway (the command-hook phase). */
    commandHook?: { roundTrip: Measured; cpu: CpuWindow };
    approvals?: ApprovalsResult;
    console?: ConsoleScaleResult;
    noisyNeighbour?: NoisyNeighbourResult;
    /** MCP tools/call one at a time, directly to the fixture and through the gateway, alternating (phases/mcp.ts). */
    mcp?: { direct: Measured; gateway: Measured; overheadMs: { p50: number; p99: number } };
    /** The same flat-out decision load on one Redis and on a cluster (phases/shards.ts). */
    shards?: ShardsResult;
    /** Decisions without and with a shadow configuration, alternating windows (phases/shadow.ts). */
    shadow?: { decisionsPerWindow: number; loadedInFlight: number; without: ShadowCostSide; with: ShadowCostSide };
    /** Decisions one at a time without and with large replays on the same workers, alternating windows (phases/replay-contention.ts). */
    replayContention?: {
      recordedHooks: number;
      replaysAtOnce: number;
      decisionsPerWindow: number;
      without: ReplayContentionSide;
      with: ReplayContentionSide;
      /** with / without. */
      ratios: { p50: number | null; p99: number | null; cpuPerDecision: number | null };
    };
  };
  profiles?: ProcessProfile[];
  targets: TargetResult[];
  phases: PhaseRecord[];
}

/** One side of the shards phase. */
export type ShardsSide =
  | ({ redis: string; status: 'measured'; decisionsPerSecond: number; concurrency: number; spread: ShardSpread } & Measured)
  | { redis: string; status: 'failed'; error: string };

/** The shards phase: one Redis against a cluster of `masters` masters, and the goal for the busiest master. */
export type ShardsResult =
  | { status: 'skipped'; reason: string }
  | { status: 'measured'; masters: number; hookQueueShards: number; skewGoal: number; single: ShardsSide; cluster: ShardsSide };

/** One step of the `rules` phase: generated rules added, whether indexed, compile time and evaluation latency (ms). */
export interface RulesStep {
  rules: number;
  indexed: boolean;
  compileMs: number;
  latency: LatencySummary;
}
