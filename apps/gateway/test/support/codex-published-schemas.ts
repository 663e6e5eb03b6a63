/**
 * OpenAI Codex's published hook output schemas (test/fixtures/codex-schemas/, verbatim from
 * openai/codex at the commits its README names), compiled with ajv: answers are checked against
 * OpenAI's own contract, not only against our zod copy of it (CODEX_OUTPUT_SCHEMAS).
 */
import { readFileSync } from 'node:fs';
import { CODEX_EVENTS, type CodexEvent } from '@ahp/protocol';
import Ajv from 'ajv';

/** The published schema file of each event (`<name>.command.output.schema.json`). */
export const CODEX_SCHEMA_FILES: Readonly<Record<CodexEvent, string>> = Object.freeze({
  SessionStart: 'session-start',
  PreToolUse: 'pre-tool-use',
  PermissionRequest: 'permission-request',
  PostToolUse: 'post-tool-use',
  UserPromptSubmit: 'user-prompt-submit',
  Stop: 'stop',
  PreCompact: 'pre-compact',
  PostCompact: 'post-compact',
  SubagentStart: 'subagent-start',
  SubagentStop: 'subagent-stop',
  StopFailure: 'stop-failure',
});

/** The text of the published output schema of `event`. */
export function codexSchemaText(event: CodexEvent): string {
  return readFileSync(new URL(`../fixtures/codex-schemas/${CODEX_SCHEMA_FILES[event]}.command.output.schema.json`, import.meta.url), 'utf8');
}

// The schemas are draft-07, ajv 6's default; `default` is an annotation here, never applied.
const ajv = new Ajv({ allErrors: true });
const compiled = new Map(CODEX_EVENTS.map((event) => [event, ajv.compile(JSON.parse(codexSchemaText(event)) as object)]));

/** Whether OpenAI's published schema of `event` accepts `output`, with ajv's complaint when it does not. */
export function publishedCodexVerdict(event: CodexEvent, output: unknown): { ok: boolean; errors: string } {
  const validate = compiled.get(event)!;
  const ok = validate(output) === true;
  return { ok, errors: ok ? '' : ajv.errorsText(validate.errors) };
}
