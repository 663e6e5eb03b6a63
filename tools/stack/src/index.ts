/**
 * @ahp/stack: start and supervise the AHP processes on one machine.
 */
export { APP_ENTRIES, agentEndpoint, startStack } from './start-stack.js';
export type { Stack, StackOptions } from './start-stack.js';
export { ServiceStartError, parseReadyLine, spawnService } from './service-process.js';
export type { ReadyLine, ServiceExit, ServiceProcess, SpawnServiceOptions } from './service-process.js';
export { mintCredentials, mintToken, readTokensFile, tokenDigest, writeTokensFile } from './agent-tokens.js';
export type { AgentCredential } from './agent-tokens.js';
export { publishHooksFile } from './hooks-config-file.js';
export type { HooksFileOutcome, PublishHooksFileOptions } from './hooks-config-file.js';
