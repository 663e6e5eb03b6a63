/**
 * @ahp/chaos: the chaos test with a ledger (`runChaos`) and the BullMQ settings measurement
 * (`measureCost`). The CLI is `ahp-chaos`; see README.md.
 */
export { runChaos, CHAOS_ORACLE_PLUGIN } from './run-chaos.js';
export type { RunChaosHooks } from './run-chaos.js';
export { RECOMMENDED_BULLMQ, ciChaosOptions, checkChaosOptions, defaultChaosOptions } from './options.js';
export type { BullmqSettings, ChaosOptions } from './options.js';
export { formatReport } from './format.js';
export type { ChaosReport } from './report.js';
export { FAULT_KINDS } from './fault-plan.js';
export type { FaultKind, FaultWeights } from './fault-plan.js';
export { DEFAULT_COST_PROFILES, formatCostReport, measureCost } from './cost.js';
export type { CostMeasurement, CostProfile, CostReport } from './cost.js';
