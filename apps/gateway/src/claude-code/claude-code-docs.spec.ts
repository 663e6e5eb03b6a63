/**
 * docs/claude-code.md's "Decisions and answers" table against the trigger table and the mapping:
 * every intensity a rule may produce at an event's trigger must have an answer in that event's
 * column (else such a decision reaches Claude Code with no documented effect — or, as happened with
 * control at UserPromptSubmit, with none at all), and the table promises no answer the mapping
 * never gives. (The converse does not hold: the gateway itself adds signals rules cannot — a
 * failure policy's block at any trigger, an approval's aid at PreToolUse — so cells exist for them.)
 */
import { readFileSync } from 'node:fs';
import { isIntensityAllowed, type ClaudeCodeEvent, type Intensity } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { CLAUDE_CODE_TRIGGERS } from './claude-code-mapping.js';

const DOC = readFileSync(new URL('../../../../docs/claude-code.md', import.meta.url), 'utf8');
const INTENSITIES: readonly Intensity[] = ['block', 'control', 'prompt', 'aid'];

/** The table's rows as cells, the header first. */
function decisionTable(): string[][] {
  const start = DOC.indexOf('### Decisions and answers');
  const rows = DOC.slice(start)
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()));
  const end = rows.findIndex((row, index) => index > 0 && row.every((cell) => /^-+$/.test(cell)) && index !== 1);
  return end < 0 ? rows : rows.slice(0, end);
}

describe('docs/claude-code.md decision table', () => {
  const [header, , ...body] = decisionTable();
  const columns = (header ?? []).slice(1).map((cell) => cell.split(',').map((name) => name.trim() as ClaudeCodeEvent));

  it('names every Claude Code event in exactly one column', () => {
    expect(columns.flat().sort()).toEqual(Object.keys(CLAUDE_CODE_TRIGGERS).sort());
  });

  for (const intensity of INTENSITIES) {
    it(`promises an answer for ${intensity} wherever a rule may produce ${intensity}`, () => {
      const row = body.find((cells) => cells[0] === intensity);
      expect(row, `a row for ${intensity}`).toBeDefined();
      columns.forEach((events, index) => {
        const cell = row?.[index + 1] ?? '';
        for (const event of events) {
          if (isIntensityAllowed(CLAUDE_CODE_TRIGGERS[event], intensity)) expect(cell, `${intensity} × ${event}`).not.toMatch(/^—/);
        }
      });
    });
  }

  it('promises "ask" only for a rule\'s control at PreToolUse (docs/spec/hooks-and-oracles.md#triggers allows no prompt at pre-tool-use)', () => {
    const pre = columns.findIndex((events) => events.includes('PreToolUse')) + 1;
    const asks = body.flatMap((cells) => cells.flatMap((cell, index) => (/"ask"/.test(cell) ? [[cells[0], index]] : [])));
    expect(asks).toEqual([['control', pre]]);
  });
});
