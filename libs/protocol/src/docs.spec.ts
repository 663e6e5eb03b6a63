/**
 * Keeps docs/protocol.md and docs/errors.md honest: every `json` example must be a frame these
 * schemas accept, every frame type needs an example, and every error and close code must be
 * documented with the semantics the code gives it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLOSE_CODES, ERROR_CODES, STANDARD_CLOSE_CODES, closeCodeAllowsReconnect } from './errors.js';
import { CLIENT_FRAME_TYPES, SERVER_FRAME_TYPES } from './frame-types.js';
import type { FrameType } from './frame-types.js';
import { parseClientFrame, parseServerFrame } from './frames.js';
import { parseHookContext } from './hook-context.js';
import { HookTriggerSchema } from './trigger.js';

const docsDir = new URL('../../../docs/', import.meta.url);
const protocolMd = readFileSync(fileURLToPath(new URL('protocol.md', docsDir)), 'utf8');
const errorsMd = readFileSync(fileURLToPath(new URL('errors.md', docsDir)), 'utf8');

/** The body and starting line of every ```json fenced block. */
function jsonBlocks(markdown: string): { line: number; body: string }[] {
  const blocks: { line: number; body: string }[] = [];
  const fence = /^```json[ \t]*\r?\n([\s\S]*?)^```[ \t]*$/gm;
  for (const match of markdown.matchAll(fence)) {
    const line = markdown.slice(0, match.index).split('\n').length;
    blocks.push({ line, body: match[1] ?? '' });
  }
  return blocks;
}

/** The body and starting line of every fenced block in one of `languages`. */
function codeBlocks(markdown: string, languages: readonly string[]): { line: number; body: string }[] {
  const blocks: { line: number; body: string }[] = [];
  const fence = /^```([a-z]*)[ \t]*\r?\n([\s\S]*?)^```[ \t]*$/gm;
  for (const match of markdown.matchAll(fence)) {
    if (!languages.includes(match[1] ?? '')) continue;
    blocks.push({ line: markdown.slice(0, match.index).split('\n').length, body: match[2] ?? '' });
  }
  return blocks;
}

/** The object literal that starts at `text[start]` (`{`), by brace counting outside strings. */
function objectLiteralAt(text: string, start: number): string | undefined {
  let depth = 0;
  let quote: string | undefined;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (quote !== undefined) {
      if (char === '\\') i++;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === "'" || char === '"' || char === '`') quote = char;
    else if (char === '{') depth++;
    else if (char === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return undefined;
}

/**
 * A TypeScript object literal of plain data as JSON (quoted keys, double quotes, no trailing
 * commas), or undefined when it holds anything else (a spread, a variable, a call).
 */
function literalAsJson(literal: string): unknown {
  const json = literal
    .replace(/'((?:[^'\\]|\\.)*)'/g, (_, body: string) => JSON.stringify(body.replace(/\\'/g, "'")))
    .replace(/([{,]\s*)([A-Za-z_$][\w$]*)\s*:/g, '$1"$2":')
    .replace(/,(\s*[}\]])/g, '$1');
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

/** Markdown table rows whose first cell is `first`, split into trimmed cells. */
function rowsStartingWith(markdown: string, first: string): string[][] {
  return markdown
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()))
    .filter((cells) => cells[0] === first);
}

describe('docs/protocol.md', () => {
  const blocks = jsonBlocks(protocolMd);

  it('has json examples', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(CLIENT_FRAME_TYPES.length + SERVER_FRAME_TYPES.length);
  });

  it('shows only real frames and every frame type at least once', () => {
    const seen = new Set<FrameType>();
    const problems: string[] = [];
    for (const { line, body } of blocks) {
      const asClient = parseClientFrame(body);
      const asServer = parseServerFrame(body);
      if (asClient.ok) seen.add(asClient.frame.type);
      else if (asServer.ok) seen.add(asServer.frame.type);
      else {
        // Report the error of the direction the example claims to be.
        const claimsClient = asClient.error.code !== 'E_UNKNOWN_TYPE';
        problems.push(`line ${line}: ${(claimsClient ? asClient : asServer).error.message}`);
      }
    }
    expect(problems, 'every ```json block in docs/protocol.md must be a valid frame').toEqual([]);
    const missing = [...CLIENT_FRAME_TYPES, ...SERVER_FRAME_TYPES].filter((type) => !seen.has(type));
    expect(missing, 'frame types without an example in docs/protocol.md').toEqual([]);
  });

  it('names every error code and every close code', () => {
    for (const code of Object.keys(ERROR_CODES)) expect(protocolMd, code).toContain(`\`${code}\``);
    for (const [name, code] of Object.entries(CLOSE_CODES)) {
      const rows = rowsStartingWith(protocolMd, String(code));
      expect(rows.length, `close code ${code}`).toBe(1);
      expect(rows[0]?.[1]).toBe(`\`${name}\``);
      expect(rows[0]?.[2]).toBe(closeCodeAllowsReconnect(code) ? 'reconnect' : 'stop');
    }
  });

  it('states the retry semantics of every error code as the table does', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      const rows = rowsStartingWith(protocolMd, `\`${code}\``);
      expect(rows.length, code).toBe(1);
      expect(rows[0]?.[1], code).toBe(info.retryable ? 'yes' : 'no');
    }
  });
});

describe('hook contexts in the docs', () => {
  const docs = [
    ...readdirSync(fileURLToPath(docsDir))
      .filter((name) => name.endsWith('.md'))
      .map((name) => ({ name: `docs/${name}`, text: readFileSync(fileURLToPath(new URL(name, docsDir)), 'utf8') })),
    { name: 'libs/sdk/README.md', text: readFileSync(fileURLToPath(new URL('../../sdk/README.md', import.meta.url)), 'utf8') },
  ];

  it('every json hook frame in the docs carries a context its trigger accepts', () => {
    let checked = 0;
    const problems: string[] = [];
    for (const doc of docs) {
      for (const { line, body } of codeBlocks(doc.text, ['json'])) {
        const parsed = parseClientFrame(body);
        if (!parsed.ok || parsed.frame.type !== 'hook') continue;
        checked++;
        const context = parseHookContext(parsed.frame.trigger, parsed.frame.context);
        if (!context.ok) problems.push(`${doc.name} line ${line}: ${context.error.message}`);
      }
    }
    expect(problems).toEqual([]);
    expect(checked, 'docs/protocol.md shows hook frames').toBeGreaterThanOrEqual(2);
  });

  it("every hook() call with a literal context in the docs' code sends a context its trigger accepts", () => {
    let checked = 0;
    const problems: string[] = [];
    for (const doc of docs) {
      for (const { line, body } of codeBlocks(doc.text, ['ts', 'js', 'typescript', 'javascript'])) {
        for (const call of body.matchAll(/\.hook\(\s*'([a-z-]+)',\s*(?=\{)/g)) {
          const trigger = HookTriggerSchema.safeParse(call[1]);
          const where = `${doc.name} near line ${line + body.slice(0, call.index).split('\n').length}`;
          if (!trigger.success) {
            problems.push(`${where}: unknown trigger ${call[1]}`);
            continue;
          }
          const literal = objectLiteralAt(body, (call.index ?? 0) + call[0].length);
          const context = literal === undefined ? undefined : literalAsJson(literal);
          if (context === undefined) continue; // built from variables or spreads: not checkable here
          checked++;
          const result = parseHookContext(trigger.data, context);
          if (!result.ok) problems.push(`${where}: ${result.error.message}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(checked, 'the SDK docs show literal hook contexts').toBeGreaterThanOrEqual(2);
  });
});

describe('docs/errors.md', () => {
  it('has one line per error code, with its retry semantics', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      const rows = rowsStartingWith(errorsMd, `\`${code}\``);
      expect(rows.length, code).toBe(1);
      expect(rows[0]?.[1], code).toBe(info.retryable ? 'yes' : 'no');
    }
  });

  it('has one line per close code, ours and the standard ones, with the reconnect rule', () => {
    const entries: [number, string][] = [
      ...Object.entries(CLOSE_CODES).map(([name, code]): [number, string] => [code, `\`${name}\``]),
      ...Object.entries(STANDARD_CLOSE_CODES).map(([code, info]): [number, string] => [Number(code), info.name]),
    ];
    for (const [code, name] of entries) {
      const rows = rowsStartingWith(errorsMd, String(code));
      expect(rows.length, `close code ${code}`).toBe(1);
      expect(rows[0]?.[1], `close code ${code}`).toBe(name);
      expect(rows[0]?.[2], `close code ${code}`).toBe(closeCodeAllowsReconnect(code) ? 'yes' : 'no');
    }
  });

  it('documents no code that does not exist', () => {
    const documented = errorsMd.match(/`E_[A-Z_]+`/g) ?? [];
    for (const code of documented) expect(Object.keys(ERROR_CODES)).toContain(code.slice(1, -1));
    const fromProtocol = protocolMd.match(/`E_[A-Z_]+`/g) ?? [];
    for (const code of fromProtocol) expect(Object.keys(ERROR_CODES)).toContain(code.slice(1, -1));
  });
});
