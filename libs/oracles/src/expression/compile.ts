/**
 * Compiling an expression: syntax tree → a tree of closures, built once per configuration
 * version. No `eval`, no `Function`, no `vm`: the only operations an expression can perform are
 * the closures below, over JSON values.
 */
import { FORBIDDEN_KEYS } from '@ahp/protocol';
import { ExpressionError } from './errors.js';
import { EXPRESSION_LIMITS, parse } from './parser.js';
import { PatternError, compileLinearPattern } from '../pattern/linear-pattern.js';
import type { LinearPattern } from '../pattern/linear-pattern.js';
import type { CompareOp, Node } from './parser.js';
import { normalizePosixPath } from '../shell/posix-path.js';
import { shellJoin } from '../shell/shell-line.js';
import { asValue, equals, includes, kindOf, kindPhrase, member, operandProblem, orderedCompare, truthy } from './values.js';
import type { Value } from './values.js';

/**
 * What an expression can read. Names that are not reserved read the hook's context (so
 * `checklist.incomplete_count` reads `context.checklist.incomplete_count`, as in the rules of docs/spec/hooks-and-oracles.md#rules).
 */
export interface ExpressionScope {
  /** The hook's context (`files`, `checklist`, `tool`, …) at the top level. */
  readonly context: Value;
  /** Reserved names, which the context cannot shadow. */
  readonly vars: Readonly<Record<ReservedName, Value>>;
  /**
   * When given, every context path the evaluation read and did not find (`tool.input.command`) is
   * appended here — except inside `exists()` and the first argument of `default()`, which are how
   * an expression says "absent is expected". Paths under `agent`, `params`, `env` and `trigger`
   * are not context and are never reported. The rule engine uses this to fail closed.
   */
  readonly missing?: string[];
  /**
   * When given, every operand the evaluation met of a type its operator or function cannot read
   * (`tool.input.command is a list, and "matches" needs a string`) is appended here. The
   * operation's answer is still the plain one (`false`, `null`); the rule engine fails closed on
   * these exactly as on missing paths (values.ts, operandProblem).
   */
  readonly mistyped?: string[];
}

/** Names that do not read the context: `agent` (from the token), `trigger`, `env`, `params`, and `context` itself. */
export const RESERVED_NAMES = ['agent', 'trigger', 'env', 'params', 'context'] as const;
export type ReservedName = (typeof RESERVED_NAMES)[number];
const RESERVED: ReadonlySet<string> = new Set(RESERVED_NAMES);

/** The built-in functions and how many arguments each takes. */
export const FUNCTIONS: Readonly<Record<string, number>> = Object.freeze({
  len: 1,
  lower: 1,
  upper: 1,
  trim: 1,
  exists: 1,
  default: 2,
  path_normalize: 1,
  shell_join: 1,
});

/** A compiled expression. `evaluate` and `test` never throw. */
export interface CompiledExpression {
  readonly source: string;
  /** `cel` for a CEL condition (cel.ts); absent for the native language. */
  readonly lang?: 'cel';
  /** The `matches` patterns it compiled, by `flags/source`: the rule index reuses them instead of compiling again. */
  readonly patterns?: ReadonlyMap<string, LinearPattern>;
  /** The expression's value; a missing field is `null`. */
  evaluate(scope: ExpressionScope): Value;
  /** Whether the value is truthy (see `truthy`): what a condition means. */
  test(scope: ExpressionScope): boolean;
}

type Evaluator = (scope: ExpressionScope) => Value;

/** Where {@link compilePattern} records what it compiled, while one (synchronous) compileExpression runs. */
let collecting: Map<string, LinearPattern> | undefined;
/** The source being compiled, for naming an operand in a type problem. */
let compiling = '';

/** How many problems one evaluation records, at most (like missing paths). */
const MAX_PROBLEMS = 16;

/** The text of `node` in the source, shortened: how a type problem names the operand. */
function label(node: Node): string {
  const text = compiling.slice(node.start, node.end);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

function report(scope: ExpressionScope, problem: string): void {
  if (scope.mistyped !== undefined && scope.mistyped.length < MAX_PROBLEMS) scope.mistyped.push(problem);
}

/** The key of a compiled pattern in {@link CompiledExpression.patterns}. */
export function patternKey(source: string, flags: string): string {
  return `${flags}/${source}`;
}

/** Compiles `source`. @throws {@link ExpressionError} with the offset of the first problem. */
export function compileExpression(source: string): CompiledExpression {
  const patterns = new Map<string, LinearPattern>();
  collecting = patterns;
  compiling = source;
  let evaluator: Evaluator;
  try {
    evaluator = compileNode(parse(source));
  } finally {
    collecting = undefined;
    compiling = '';
  }
  return Object.freeze({
    source,
    patterns,
    evaluate: (scope: ExpressionScope) => {
      const value = evaluator(scope);
      return value === undefined ? null : value;
    },
    test: (scope: ExpressionScope) => truthy(evaluator(scope)),
  });
}

/**
 * The text of a field path rooted in the hook's context (`tool.input.command`,
 * `context.files.changed_count`), or undefined when `node` is not such a path (a reserved name, a
 * computed index, a call).
 */
function contextPath(node: Node): string | undefined {
  switch (node.type) {
    case 'var':
      return RESERVED.has(node.name) && node.name !== 'context' ? undefined : node.name;
    case 'member': {
      const base = contextPath(node.object);
      return base === undefined ? undefined : `${base}.${node.key}`;
    }
    case 'index': {
      const base = contextPath(node.object);
      return base === undefined ? undefined : `${base}[…]`;
    }
    default:
      return undefined;
  }
}

/** `evaluator`, reporting `path` to `scope.missing` when the value it reads is absent. */
function reporting(evaluator: Evaluator, path: string | undefined): Evaluator {
  if (path === undefined || path === 'context') return evaluator;
  return (scope) => {
    const value = evaluator(scope);
    if (value === undefined && scope.missing !== undefined && scope.missing.length < 16) scope.missing.push(path);
    return value;
  };
}

/**
 * Compiles `node`. A field path (variable, member, index) reports itself as missing when
 * `report` is true; its own object is compiled quietly, so `tool.input.command` is reported once,
 * as the whole path, not as each prefix.
 */
function compileNode(node: Node, report = true): Evaluator {
  if (report && (node.type === 'var' || node.type === 'member' || node.type === 'index')) {
    return reporting(compileNode(node, false), contextPath(node));
  }
  switch (node.type) {
    case 'literal': {
      const value = node.value;
      return () => value;
    }
    case 'regex':
      throw new ExpressionError('a regular expression can only be the right side of "matches"', node.start);
    case 'list': {
      const items = node.items.map((item) => compileNode(item));
      return (scope) => Object.freeze(items.map((item) => nullIfMissing(item(scope))));
    }
    case 'var':
      return compileVar(node.name, node.start);
    case 'member': {
      checkKey(node.key, node.keyStart);
      const object = compileNode(node.object, false);
      const key = node.key;
      return (scope) => member(object(scope), key);
    }
    case 'index': {
      const object = compileNode(node.object, false);
      const index = compileNode(node.index);
      return (scope) => member(object(scope), index(scope));
    }
    case 'call':
      return compileCall(node);
    case 'not': {
      const operand = compileNode(node.operand);
      return (scope) => !truthy(operand(scope));
    }
    case 'logical': {
      const operands = node.operands.map((operand) => compileNode(operand));
      if (node.op === 'and') return (scope) => operands.every((operand) => truthy(operand(scope)));
      return (scope) => operands.some((operand) => truthy(operand(scope)));
    }
    case 'compare':
      return compileCompare(node);
  }
}

function compileVar(name: string, at: number): Evaluator {
  checkKey(name, at);
  if (RESERVED.has(name)) {
    const reserved = name as ReservedName;
    return (scope) => asValue(scope.vars[reserved]);
  }
  return (scope) => member(scope.context, name);
}

/** Field names that could reach a prototype are refused when they are written in the expression. */
function checkKey(key: string, at: number): void {
  if (FORBIDDEN_KEYS.has(key)) {
    throw new ExpressionError(`"${key}" cannot be read: expressions see only the data's own fields`, at);
  }
}

function compileCompare(node: Extract<Node, { type: 'compare' }>): Evaluator {
  const left = compileNode(node.left);
  const [leftText, op] = [label(node.left), node.op];
  if (op === 'matches') {
    const pattern = compilePattern(node.right);
    return (scope) => {
      const value = left(scope);
      if (typeof value === 'string') return pattern.test(value);
      if (value !== undefined) report(scope, `${leftText} is ${kindPhrase(kindOf(value))}, and "matches" needs a string`);
      return false;
    };
  }
  const right = compileNode(node.right);
  const rightText = label(node.right);
  const compare = comparison(op);
  return (scope) => {
    const a = left(scope);
    const b = right(scope);
    if (scope.mistyped !== undefined) {
      const needs = operandProblem(op, a, b);
      if (needs !== undefined) {
        report(scope, `${leftText} (${kindPhrase(kindOf(a))}) ${op} ${rightText} (${kindPhrase(kindOf(b))}): "${op}" needs ${needs}`);
      }
    }
    return compare(a, b);
  };
}

/** What a comparison answers for its two operands (left, right). */
function comparison(op: Exclude<CompareOp, 'matches'>): (a: Value, b: Value) => boolean {
  switch (op) {
    case '==':
      return equals;
    case '!=':
      return (a, b) => !equals(a, b);
    case '<':
    case '<=':
    case '>':
    case '>=':
      return (a, b) => orderedCompare(op, a, b);
    case 'in':
      return (a, b) => includes(b, a);
    case 'not in':
      return (a, b) => !includes(b, a);
    case 'contains':
      return includes;
    case 'startswith':
      return (a, b) => typeof a === 'string' && typeof b === 'string' && a.startsWith(b);
    case 'endswith':
      return (a, b) => typeof a === 'string' && typeof b === 'string' && a.endsWith(b);
  }
}

/**
 * The right side of `matches`: a regex literal (`/rm\s+-rf/i`) or a string literal holding a
 * pattern source, compiled here, once, on RE2 (linear time in the input: see linear-pattern.ts).
 */
function compilePattern(node: Node): LinearPattern {
  let source: string;
  let flags = '';
  if (node.type === 'regex') {
    source = node.source;
    flags = node.flags;
  } else if (node.type === 'literal' && typeof node.value === 'string') {
    source = node.value;
  } else {
    throw new ExpressionError('the right side of "matches" must be a regular expression literal (/…/) or a string literal', node.start);
  }
  if (source.length > EXPRESSION_LIMITS.maxRegexChars) {
    throw new ExpressionError(`regular expression longer than ${EXPRESSION_LIMITS.maxRegexChars} characters`, node.start);
  }
  try {
    const compiled = compileLinearPattern(source, flags);
    collecting?.set(patternKey(source, flags), compiled);
    return compiled;
  } catch (error) {
    if (error instanceof PatternError) throw new ExpressionError(`regular expression: ${error.message}`, node.start);
    throw error;
  }
}

function compileCall(node: Extract<Node, { type: 'call' }>): Evaluator {
  const arity = Object.hasOwn(FUNCTIONS, node.name) ? FUNCTIONS[node.name] : undefined;
  if (arity === undefined) {
    throw new ExpressionError(`unknown function "${node.name}" (known: ${Object.keys(FUNCTIONS).join(', ')})`, node.start);
  }
  if (node.args.length !== arity) {
    throw new ExpressionError(`${node.name}() takes ${arity} argument${arity === 1 ? '' : 's'}, got ${node.args.length}`, node.start);
  }
  if (node.name === 'exists') {
    const target = node.args[0];
    if (target === undefined) throw new ExpressionError('exists() takes a field path', node.start);
    if (target.type !== 'var' && target.type !== 'member' && target.type !== 'index') {
      throw new ExpressionError('exists() takes a field path, e.g. exists(coverage.threshold)', target.start);
    }
    const path = compileNode(target, false);
    return (scope) => path(scope) !== undefined;
  }
  // default(value, fallback): an absent value is expected there, so it is not reported.
  const args = node.args.map((arg, index) => compileNode(arg, !(node.name === 'default' && index === 0)));
  const missing: Evaluator = () => undefined;
  const first = args[0] ?? missing;
  const argText = node.args[0] === undefined ? '' : label(node.args[0]);
  const name = node.name;
  /** Reports a present argument the function cannot read; its answer is then `null`. */
  const refuse = (scope: ExpressionScope, value: Value, needs: string): Value => {
    if (value !== undefined) report(scope, `${name}(${argText}): ${argText} is ${kindPhrase(kindOf(value))}, and ${name}() needs ${needs}`);
    return null;
  };
  const onString = (f: (s: string) => string): Evaluator => (scope) => {
    const value = first(scope);
    return typeof value === 'string' ? f(value) : value === null ? null : refuse(scope, value, 'a string');
  };
  switch (name) {
    case 'len':
      return (scope) => {
        const value = first(scope);
        if (typeof value === 'string') return [...value].length;
        if (Array.isArray(value)) return value.length;
        if (value !== null && typeof value === 'object') return Object.keys(value).length;
        return value === null ? null : refuse(scope, value, 'a string, list or object');
      };
    case 'lower':
      return onString((s) => s.toLowerCase());
    case 'upper':
      return onString((s) => s.toUpperCase());
    case 'trim':
      return onString((s) => s.trim());
    case 'path_normalize':
      return onString(normalizePosixPath);
    case 'shell_join':
      return (scope) => {
        const value = first(scope);
        if (typeof value === 'string') return value;
        if (Array.isArray(value) && value.every((item: Value) => typeof item === 'string')) return shellJoin(value as readonly string[]);
        return value === null ? null : refuse(scope, value, 'a string or a list of strings');
      };
    default: {
      // default(value, fallback)
      const fallback = args[1] ?? missing;
      return (scope) => {
        const value = first(scope);
        return value === undefined || value === null ? fallback(scope) : value;
      };
    }
  }
}

function nullIfMissing(value: Value): Value {
  return value === undefined ? null : value;
}
