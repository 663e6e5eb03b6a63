/**
 * The problems of a refused hooks configuration, read from the operator API's 400 answer
 * (`details.issues`: line, column, field path, message; line 0 for the whole file).
 */
import type { JsonObject } from '@ahp/protocol';

export interface ConfigIssue {
  line: number;
  column: number;
  path: string;
  message: string;
}

/** The issues listed in an error's `details`, in line order; malformed entries are skipped. */
export function configIssues(details: JsonObject | undefined): ConfigIssue[] {
  const raw = details?.['issues'];
  if (!Array.isArray(raw)) return [];
  const issues: ConfigIssue[] = [];
  for (const item of raw) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) continue;
    const { line, column, path, message } = item as Record<string, unknown>;
    if (typeof message !== 'string') continue;
    issues.push({
      line: typeof line === 'number' && Number.isInteger(line) && line >= 0 ? line : 0,
      column: typeof column === 'number' && Number.isInteger(column) && column >= 0 ? column : 0,
      path: typeof path === 'string' ? path : '',
      message,
    });
  }
  return issues.sort((a, b) => a.line - b.line || a.column - b.column);
}

/** Character offset of the start of 1-based `line` in `text` (for moving the editor's cursor there). */
export function offsetOfLine(text: string, line: number): number {
  if (line <= 1) return 0;
  let offset = 0;
  for (let current = 1; current < line; current += 1) {
    const next = text.indexOf('\n', offset);
    if (next === -1) return text.length;
    offset = next + 1;
  }
  return offset;
}
