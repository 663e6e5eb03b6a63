// CLI for `npm run generate:json-schema -w @ahp/protocol`: regenerates libs/protocol/json-schema/.
// Node 20 cannot run TypeScript, and the workspace has no tsx or vite-node; Vite (already a
// devDependency, the engine under Vitest) can: `runnerImport` loads the .ts module with its
// relative `.js` imports resolved to the TypeScript sources, exactly as the tests see them.
import { fileURLToPath } from 'node:url';
import { runnerImport } from 'vite';

const entry = fileURLToPath(new URL('./generate-json-schema.ts', import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));
const { module } = await runnerImport(entry, { root, logLevel: 'error' });
const written = module.writeJsonSchemas();
console.log(`wrote ${written.length} JSON Schema files to ${module.JSON_SCHEMA_DIR}`);
