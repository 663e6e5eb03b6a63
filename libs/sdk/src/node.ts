/**
 * @ahp/sdk/node — the Node-only parts of the SDK, kept off the main entry point so the client
 * still bundles for browsers. Import from `@ahp/sdk/node`.
 */
export { runTool } from './node/tool-runner.js';
export type { RunToolOptions, ToolRunResult } from './node/tool-runner.js';
