/**
 * @ahp/stack: start and supervise the AHP processes on one machine.
 */
export { APP_ENTRIES, agentEndpoint, metricsEndpoint, startStack } from './start-stack.js';
export type { Stack, StackOptions } from './start-stack.js';
export { ServiceStartError, parseReadyLine, spawnService } from './service-process.js';
export { DEFAULT_RESTART_POLICY, Supervisor, restartDelay } from './supervisor.js';
export type { RestartPolicy, SupervisedSlot, SupervisorEvent } from './supervisor.js';
export { CONSOLE_DIR, ConsoleNotBuiltError, nextReadyLine, startConsole } from './console-process.js';
export type { ConsoleOptions, ConsoleProcess } from './console-process.js';
export { LOCAL_ADMIN, ensureOperatorTokens } from './operator-tokens.js';
export type { OperatorTokensOutcome } from './operator-tokens.js';
export type { ReadyLine, ServiceExit, ServiceProcess, SpawnServiceOptions } from './service-process.js';
export { mintCredentials, mintToken, readTokensFile, tokenDigest, writeTokensFile } from './agent-tokens.js';
export type { AgentCredential } from './agent-tokens.js';
export { publishHooksFile } from './hooks-config-file.js';
export type { HooksFileOutcome, PublishHooksFileOptions } from './hooks-config-file.js';
