/**
 * CEL (the Common Expression Language, https://cel.dev) as the second language of rule
 * conditions (`lang: cel`), through `@bufbuild/cel` (Buf's implementation, tested against the
 * cel-spec conformance suite; its `matches()` runs on an RE2 port, linear time).
 *
 * The same variables as the native language: the context's top-level fields (`tool`, `files`…),
 * `agent`, `trigger`, `env`, `params` and `context`; plus CEL's standard functions and the
 * strings extension (`lowerAscii()`, `indexOf()`…). No I/O exists in CEL. Cost is bounded before
 * any evaluation: the source is at most 4 096 characters (the schema), the tree at most 32
 * levels deep, and comprehensions (`exists`, `all`, `map`, `filter`) cannot nest, so an
 * evaluation costs at most the expression's size times the length of one list of the context.
 *
 * Failing closed: CEL reports reading an absent field as an error ("no such key"). A condition
 * whose evaluation errs is false, and the error is reported as a missing context path, so a rule
 * that could restrict fails closed exactly like a native rule reading an absent field. Write
 * `has(tool.input.command)` where absence is expected.
 */
import { celEnv, isCelError, parse, plan } from '@bufbuild/cel';
import type { CelInput } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { PatternError, compileLinearPattern } from '../pattern/linear-pattern.js';
import type { CompiledExpression, ExpressionScope } from './compile.js';
import { ExpressionError } from './errors.js';
import { EXPRESSION_LIMITS } from './parser.js';
import { RESERVED_NAMES } from './compile.js';
import { member, truthy } from './values.js';
import type { Value } from './values.js';

const ENV = celEnv({ funcs: strings });
const COMPREHENSIONS = 'comprehensionExpr';

/** A node of the parsed CEL tree, as far as the checks below look at it. */
interface CelNode {
  exprKind?: { case?: string; value?: Record<string, unknown> };
}

/** Compiles a CEL condition. @throws {@link ExpressionError} (offset 0: CEL reports its own positions in the message). */
export function compileCelExpression(source: string): CompiledExpression {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(source);
  } catch (error) {
    throw new ExpressionError(`invalid CEL: ${(error as Error).message.split('\n')[0] ?? ''}`, 0);
  }
  checkTree(parsed.expr as unknown as CelNode, 0, false);
  const paths = fieldPaths(parsed.expr as unknown as CelNode);
  let program: (bindings: Record<string, CelInput>) => unknown;
  try {
    program = plan(ENV, parsed) as (bindings: Record<string, CelInput>) => unknown;
  } catch (error) {
    throw new ExpressionError(`invalid CEL: ${(error as Error).message}`, 0);
  }
  const run = (scope: ExpressionScope): Value => {
    let result: unknown;
    try {
      result = program(bindingsOf(scope));
    } catch (error) {
      result = { message: (error as Error).message, isError: true };
    }
    if (isCelError(result) || (typeof result === 'object' && result !== null && (result as { isError?: boolean }).isError === true)) {
      // An absent field (or any error) decides nothing: report it so a restricting rule fails closed.
      if (scope.missing !== undefined) {
        const absent = paths.filter((path) => isAbsent(scope, path));
        const reported = absent.length > 0 ? absent.map((path) => path.join('.')) : [`(cel: ${(result as { message: string }).message.slice(0, 200)})`];
        for (const path of reported) if (scope.missing.length < 16) scope.missing.push(path);
      }
      return undefined;
    }
    return fromCel(result);
  };
  return Object.freeze({
    source,
    lang: 'cel' as const,
    evaluate: (scope: ExpressionScope) => {
      const value = run(scope);
      return value === undefined ? null : value;
    },
    test: (scope: ExpressionScope) => truthy(run(scope)),
  });
}

/** Depth, nested comprehensions and `matches` patterns (on RE2, refused here when RE2 cannot run them). */
function checkTree(node: CelNode | undefined, depth: number, inComprehension: boolean): void {
  if (node === undefined || node === null || typeof node !== 'object') return;
  if (depth > EXPRESSION_LIMITS.maxDepth) throw new ExpressionError(`CEL expression nested deeper than ${EXPRESSION_LIMITS.maxDepth} levels`, 0);
  const kind = node.exprKind?.case;
  const value = node.exprKind?.value ?? {};
  if (kind === COMPREHENSIONS) {
    if (inComprehension) {
      throw new ExpressionError('CEL comprehensions (exists, all, map, filter) cannot be nested: their cost would multiply', 0);
    }
  }
  if (kind === 'callExpr' && value['function'] === 'matches') {
    const args = (value['args'] as CelNode[] | undefined) ?? [];
    const pattern = args[args.length - 1]?.exprKind;
    if (pattern?.case === 'constExpr') {
      const constant = (pattern.value as { constantKind?: { case?: string; value?: unknown } }).constantKind;
      if (constant?.case === 'stringValue' && typeof constant.value === 'string') {
        try {
          compileLinearPattern(constant.value);
        } catch (error) {
          if (error instanceof PatternError) throw new ExpressionError(`regular expression: ${error.message}`, 0);
          throw error;
        }
      }
    }
  }
  for (const child of Object.values(value)) {
    const inner = kind === COMPREHENSIONS || inComprehension;
    if (Array.isArray(child)) for (const item of child) checkTree(item as CelNode, depth + 1, inner);
    else if (typeof child === 'object' && child !== null) checkTree(child as CelNode, depth + 1, inner);
  }
}

const RESERVED: ReadonlySet<string> = new Set(RESERVED_NAMES.filter((name) => name !== 'context'));

/** The field paths the expression reads (`tool.input.command`), outside `has()`: what an error may be about. */
function fieldPaths(root: CelNode): string[][] {
  const found = new Map<string, string[]>();
  const pathOf = (node: CelNode | undefined): string[] | undefined => {
    const kind = node?.exprKind?.case;
    const value = node?.exprKind?.value ?? {};
    if (kind === 'identExpr') return [value['name'] as string];
    if (kind === 'selectExpr' && value['testOnly'] !== true) {
      const base = pathOf(value['operand'] as CelNode);
      return base === undefined ? undefined : [...base, value['field'] as string];
    }
    return undefined;
  };
  const visit = (node: CelNode | undefined): void => {
    if (node === undefined || node === null || typeof node !== 'object') return;
    const path = pathOf(node);
    if (path !== undefined && path[0] !== undefined && !RESERVED.has(path[0])) {
      const normal = path[0] === 'context' ? path.slice(1) : path;
      if (normal.length > 0) found.set(normal.join('.'), normal);
      return;
    }
    for (const child of Object.values(node.exprKind?.value ?? {})) {
      if (Array.isArray(child)) child.forEach((item) => visit(item as CelNode));
      else if (typeof child === 'object' && child !== null) visit(child as CelNode);
    }
  };
  visit(root);
  return [...found.values()];
}

function isAbsent(scope: ExpressionScope, path: readonly string[]): boolean {
  let value: Value = scope.context;
  for (const key of path) {
    value = member(value, key);
    if (value === undefined) return true;
  }
  return false;
}

/** JSON → CEL input: objects become Maps (CEL's maps), numbers stay doubles. Cached per object for one hook. */
const converted = new WeakMap<object, CelInput>();
function toCel(value: Value): CelInput {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object') return value;
  const cached = converted.get(value);
  if (cached !== undefined) return cached;
  const result: CelInput = Array.isArray(value)
    ? value.map((item) => toCel(item as Value))
    : new Map(Object.entries(value).map(([key, item]) => [key, toCel(item as Value)]));
  converted.set(value, result);
  return result;
}

function bindingsOf(scope: ExpressionScope): Record<string, CelInput> {
  const bindings: Record<string, CelInput> = {};
  const context = scope.context;
  if (context !== null && typeof context === 'object' && !Array.isArray(context)) {
    for (const [key, value] of Object.entries(context)) bindings[key] = toCel(value as Value);
  }
  for (const [name, value] of Object.entries(scope.vars)) bindings[name] = toCel(value as Value);
  return bindings;
}

/** A CEL result as a JSON-like value (booleans, numbers, strings; lists and maps only for truthiness). */
function fromCel(value: unknown): Value {
  if (value === null || typeof value === 'boolean' || typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  return value !== undefined ? true : null;
}
