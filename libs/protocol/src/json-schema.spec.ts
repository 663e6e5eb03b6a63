import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JSON_SCHEMA_DIR, JSON_SCHEMA_FILES, renderJsonSchemas } from '../scripts/generate-json-schema.js';

const REGENERATE = 'run `npm run generate:json-schema -w @ahp/protocol` and commit libs/protocol/json-schema/';

describe('generated JSON Schema', () => {
  const rendered = renderJsonSchemas();

  it('covers the families other languages need', () => {
    for (const name of [
      'client-frame',
      'server-frame',
      'signal',
      'hook-context',
      'hook-decision',
      'signal-response',
      'protocol-state',
      'plan',
      'verification-result',
      'control-envelope',
      'inbox-message',
      'ahp-error',
      'hooks-config',
    ]) {
      expect(rendered.has(`${name}.json`), `${name}.json`).toBe(true);
    }
    expect(rendered.size).toBe(JSON_SCHEMA_FILES.length);
  });

  it('is deterministic', () => {
    expect(renderJsonSchemas()).toEqual(rendered);
  });

  it('is draft 2020-12, formatted with two spaces and a trailing newline', () => {
    for (const [file, content] of rendered) {
      const parsed = JSON.parse(content) as Record<string, unknown>;
      expect(parsed['$schema'], file).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(content.endsWith('}\n'), file).toBe(true);
      expect(content).toBe(`${JSON.stringify(parsed, null, 2)}\n`);
    }
  });

  it('keeps objects closed, as the zod schemas are strict', () => {
    const frames = JSON.parse(rendered.get('client-frame.json')!) as { $defs: Record<string, Record<string, unknown>> };
    expect(frames.$defs['HookFrame']?.['additionalProperties']).toBe(false);
    expect(frames.$defs['HookFrame']?.['required']).toEqual(['type', 'id', 'trigger', 'context']);
  });

  it('matches the checked-in files (no drift)', () => {
    const problems: string[] = [];
    for (const [file, content] of rendered) {
      const path = join(JSON_SCHEMA_DIR, file);
      if (!existsSync(path)) problems.push(`${file} is missing`);
      else if (readFileSync(path, 'utf8') !== content) problems.push(`${file} is out of date`);
    }
    const onDisk = existsSync(JSON_SCHEMA_DIR) ? readdirSync(JSON_SCHEMA_DIR).filter((f) => f.endsWith('.json')) : [];
    for (const file of onDisk) if (!rendered.has(file)) problems.push(`${file} is no longer generated`);
    expect(problems, `JSON Schema drift: ${problems.join('; ')} — ${REGENERATE}`).toEqual([]);
  });
});
