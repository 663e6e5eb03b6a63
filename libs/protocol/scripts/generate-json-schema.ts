/**
 * JSON Schema for clients in other languages: one file per top-level message family, generated
 * from the zod schemas (the single source of truth) into `libs/protocol/json-schema/`.
 *
 * - {@link renderJsonSchemas} is pure: it returns file name → file content, byte for byte what
 *   belongs on disk. The drift test (`json-schema.spec.ts`) compares it with the checked-in files.
 * - {@link writeJsonSchemas} writes them and removes stale `*.json` files; it is what
 *   `npm run generate:json-schema -w @ahp/protocol` runs (through `write-json-schema.mjs`, because
 *   Node 20 cannot execute TypeScript by itself).
 *
 * The schemas describe the wire INPUT (`io: 'input'`): fields with a default are optional, as a
 * sender may omit them. Cross-field invariants written as zod refinements (a signal's header
 * intensity matching its payload level, a plan's dependency graph, …) cannot be expressed in JSON
 * Schema and are not in these files; a JSON Schema validator accepts a superset of what the
 * gateway accepts, never less.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ControlEnvelopeSchema, ControlSignalEventSchema } from '../src/control-envelope.js';
import { AhpErrorSchema } from '../src/errors.js';
import { ClientFrameSchema } from '../src/client-frames.js';
import { PROTOCOL_VERSION } from '../src/frame-primitives.js';
import { ServerFrameSchema } from '../src/server-frames.js';
import { HookContextsSchema } from '../src/hook-context.js';
import { HookDecisionSchema } from '../src/hook-decision.js';
import { HooksConfigSchema } from '../src/hooks-config.js';
import { InboxMessageSchema } from '../src/inbox.js';
import { PlanSchema } from '../src/plan.js';
import { ProtocolStateSchema } from '../src/request.js';
import { SignalResponseSchema } from '../src/signal-response.js';
import { SignalSchema } from '../src/signal.js';
import { VerificationResultSchema } from '../src/verification.js';

/** Where the generated files live (checked in, shipped with the package, never wiped by a build). */
export const JSON_SCHEMA_DIR = fileURLToPath(new URL('../json-schema/', import.meta.url));

/** One generated file: its name, the schema and a title for readers of the file. */
export interface JsonSchemaFile {
  file: string;
  title: string;
  schema: z.ZodType;
}

/** The families with a file of their own, in the order the docs list them. */
export const JSON_SCHEMA_FILES: readonly JsonSchemaFile[] = [
  { file: 'client-frame.json', title: 'AHP client frame', schema: ClientFrameSchema },
  { file: 'server-frame.json', title: 'AHP server frame', schema: ServerFrameSchema },
  { file: 'signal.json', title: 'AHP signal', schema: SignalSchema },
  { file: 'hook-context.json', title: 'AHP hook contexts, by trigger', schema: HookContextsSchema },
  { file: 'hook-decision.json', title: 'AHP hook decision', schema: HookDecisionSchema },
  { file: 'signal-response.json', title: 'AHP signal response', schema: SignalResponseSchema },
  { file: 'protocol-state.json', title: 'AHP request state', schema: ProtocolStateSchema },
  { file: 'plan.json', title: 'AHP plan', schema: PlanSchema },
  { file: 'verification-result.json', title: 'AHP verification result', schema: VerificationResultSchema },
  { file: 'control-envelope.json', title: 'AHP control envelope (model output)', schema: ControlEnvelopeSchema },
  { file: 'control-signal-event.json', title: 'AHP control_signal event', schema: ControlSignalEventSchema },
  { file: 'inbox-message.json', title: 'AHP inbox message', schema: InboxMessageSchema },
  { file: 'ahp-error.json', title: 'AHP error', schema: AhpErrorSchema },
  { file: 'hooks-config.json', title: 'AHP hooks configuration (.ahp/hooks.yaml)', schema: HooksConfigSchema },
];

/** Renders one schema as draft 2020-12 JSON Schema text: 2-space indent, trailing newline. */
export function renderJsonSchema(entry: JsonSchemaFile): string {
  const generated = z.toJSONSchema(entry.schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
    cycles: 'ref',
  }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  const document = {
    $schema,
    title: entry.title,
    $comment: `Generated from @ahp/protocol (protocol version ${PROTOCOL_VERSION}) by scripts/generate-json-schema.ts. Do not edit; run npm run generate:json-schema -w @ahp/protocol.`,
    ...rest,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** Every generated file: name → content. Pure and deterministic (same schemas, same bytes). */
export function renderJsonSchemas(): Map<string, string> {
  return new Map(JSON_SCHEMA_FILES.map((entry) => [entry.file, renderJsonSchema(entry)]));
}

/** Writes every file into `dir` and deletes `*.json` files there that are no longer generated. */
export function writeJsonSchemas(dir: string = JSON_SCHEMA_DIR): string[] {
  const files = renderJsonSchemas();
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(dir)) {
    if (name.endsWith('.json') && !files.has(name)) rmSync(join(dir, name));
  }
  for (const [name, content] of files) writeFileSync(join(dir, name), content);
  return [...files.keys()];
}
