/**
 * A JSON value indented as `JSON.stringify(value, null, 2)` writes it, as pieces: every string and
 * key shown through {@link visiblePieces}, so hidden characters and long whitespace runs become
 * markers (`describeHiddenText` says where). Without markers the text is exactly that of
 * `JSON.stringify(value, null, 2)` (what an operator copies still parses to the value).
 */
import { visiblePieces, type TextPiece } from './visible-text';

export interface VisibleJson {
  pieces: TextPiece[];
}

const INDENT = '  ';

/** The pieces of `value`, indented. */
export function visibleJson(value: unknown): VisibleJson {
  // Through JSON first: toJSON, undefined members, NaN and the like end up exactly as the text has them.
  const text = JSON.stringify(value);
  if (text === undefined) return { pieces: [] };
  const plain: unknown = JSON.parse(text);
  const out: TextPiece[] = [];
  const write = (chunk: string) => {
    const last = out.at(-1);
    if (last?.kind === 'text') last.text += chunk;
    else out.push({ kind: 'text', text: chunk });
  };
  const newline = (depth: number) => {
    write(`\n${INDENT.repeat(depth)}`);
  };
  const string = (s: string) => {
    write('"');
    for (const piece of visiblePieces(s)) {
      if (piece.kind === 'mark') out.push(piece);
      else write(JSON.stringify(piece.text).slice(1, -1));
    }
    write('"');
  };

  // An explicit stack of what is left to write, so a deeply nested value cannot overflow the call stack.
  type Task = { kind: 'value'; value: unknown; depth: number } | { kind: 'raw'; text: string } | { kind: 'newline'; depth: number } | { kind: 'key'; key: string };
  const tasks: Task[] = [{ kind: 'value', value: plain, depth: 0 }];
  while (tasks.length > 0) {
    const task = tasks.pop() as Task;
    if (task.kind === 'raw') write(task.text);
    else if (task.kind === 'newline') newline(task.depth);
    else if (task.kind === 'key') {
      string(task.key);
      write(': ');
    } else {
      const { value: item, depth } = task;
      if (typeof item === 'string') string(item);
      else if (Array.isArray(item)) {
        if (item.length === 0) {
          write('[]');
          continue;
        }
        write('[');
        const next: Task[] = [];
        item.forEach((child, k) => {
          if (k > 0) next.push({ kind: 'raw', text: ',' });
          next.push({ kind: 'newline', depth: depth + 1 }, { kind: 'value', value: child, depth: depth + 1 });
        });
        next.push({ kind: 'newline', depth }, { kind: 'raw', text: ']' });
        for (let k = next.length - 1; k >= 0; k--) tasks.push(next[k] as Task);
      } else if (typeof item === 'object' && item !== null) {
        const entries = Object.entries(item);
        if (entries.length === 0) {
          write('{}');
          continue;
        }
        write('{');
        const next: Task[] = [];
        entries.forEach(([key, child], k) => {
          if (k > 0) next.push({ kind: 'raw', text: ',' });
          next.push({ kind: 'newline', depth: depth + 1 }, { kind: 'key', key }, { kind: 'value', value: child, depth: depth + 1 });
        });
        next.push({ kind: 'newline', depth }, { kind: 'raw', text: '}' });
        for (let k = next.length - 1; k >= 0; k--) tasks.push(next[k] as Task);
      } else write(JSON.stringify(item));
    }
  }
  return { pieces: out };
}

/** `\u202e` for each UTF-16 unit of `text`: how JSON writes a character so that it shows. */
function unicodeEscapes(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) out += `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/**
 * `value` as the edit-input editor starts with it: indented JSON of the same value, with every
 * invisible or lookalike character written as a `\u…` escape (a text area cannot mark them, and a
 * raw bidi override would reorder what the operator edits). Whitespace runs stay as they are.
 */
export function editableJson(value: unknown): string {
  let out = '';
  for (const piece of visibleJson(value).pieces) {
    if (piece.kind === 'text') out += piece.text;
    else out += piece.reason === 'whitespace' ? JSON.stringify(piece.source).slice(1, -1) : unicodeEscapes(piece.source);
  }
  return out;
}
