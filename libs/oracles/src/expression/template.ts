/**
 * Templates: human text in which `{{ expression }}` is replaced by the expression's value,
 * e.g. `"大变更（{{ files.changed_count }} 文件），建议分步？"`. Compiled once, like conditions.
 * Every substituted value is redacted (`redactText`): templates render text for people.
 */
import { redactText } from '@ahp/protocol';
import { compileExpression } from './compile.js';
import type { CompiledExpression, ExpressionScope } from './compile.js';
import { ExpressionError } from './errors.js';
import { MAX_RENDERED_CHARS, render } from './values.js';

/** A compiled template. `render` never throws. */
export interface CompiledTemplate {
  readonly source: string;
  /** True when the template has no `{{ … }}`: its text is always the same. */
  readonly constant: boolean;
  render(scope: ExpressionScope): string;
}

type Part = string | CompiledExpression;

/**
 * Compiles a template. `{{` always opens an expression, which runs to the first `}}` outside a
 * string literal.
 * @throws {@link ExpressionError} with the offset in the template text.
 */
export function compileTemplate(source: string): CompiledTemplate {
  const parts: Part[] = [];
  let i = 0;
  while (i < source.length) {
    const open = source.indexOf('{{', i);
    if (open === -1) {
      parts.push(source.slice(i));
      break;
    }
    if (open > i) parts.push(source.slice(i, open));
    const close = findClose(source, open + 2);
    if (close === -1) throw new ExpressionError('"{{" without a matching "}}"', open);
    const inner = source.slice(open + 2, close);
    if (inner.trim() === '') throw new ExpressionError('empty "{{ }}"', open);
    try {
      parts.push(compileExpression(inner));
    } catch (error) {
      if (error instanceof ExpressionError) throw new ExpressionError(error.message, open + 2 + error.offset);
      throw error;
    }
    i = close + 2;
  }
  const constant = parts.every((part) => typeof part === 'string');
  const text = constant ? parts.join('') : '';
  return Object.freeze({
    source,
    constant,
    render: (scope: ExpressionScope) => {
      if (constant) return text;
      let out = '';
      for (const part of parts) {
        // A value from the hook context is the agent's text: a credential in it (a command line with
        // a token) must not reach the signal, the stored decision or the console through a message.
        out += typeof part === 'string' ? part : redactText(render(part.evaluate(scope)));
        if (out.length > MAX_RENDERED_CHARS) return `${out.slice(0, MAX_RENDERED_CHARS - 1)}…`;
      }
      return out;
    },
  });
}

/** Offset of the `}}` closing an expression that starts at `from`, skipping string literals; -1 when there is none. */
function findClose(source: string, from: number): number {
  let quote: string | undefined;
  for (let i = from; i < source.length; i += 1) {
    const c = source.charAt(i);
    if (quote !== undefined) {
      if (c === '\\') i += 1;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '}' && source.charAt(i + 1) === '}') {
      return i;
    }
  }
  return -1;
}
