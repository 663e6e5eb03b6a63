/**
 * Values of the expression language and the only ways an expression can touch data: own data
 * properties of plain objects, and in-range integer indexes of arrays. Nothing here calls a
 * function found in the data, reads a getter, or walks a prototype.
 */
import { FORBIDDEN_KEYS } from '@ahp/protocol';
import { normalizePosixPath } from '../shell/posix-path.js';

/**
 * A value during evaluation: JSON, or `undefined` for a missing field. Outside the evaluator
 * (results, template text) a missing field is `null`.
 */
export type Value = null | boolean | number | string | readonly Value[] | { readonly [key: string]: Value } | undefined;

/** True for objects made by `{}`/`JSON.parse`/`Object.create(null)`: no class instances, no functions. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** `value` when it is a JSON value the language can hold, else `undefined` (missing). */
export function asValue(value: unknown): Value {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : undefined;
    case 'object':
      if (value === null) return null;
      if (Array.isArray(value) || isPlainObject(value)) return value as Value;
      return undefined;
    default:
      return undefined;
  }
}

/** An own data property (never a getter), as a language value. */
function ownData(target: object, key: string): Value {
  const descriptor = Object.getOwnPropertyDescriptor(target, key);
  if (descriptor === undefined || !('value' in descriptor)) return undefined;
  return asValue(descriptor.value);
}

/**
 * `target[key]` as the language sees it:
 * - a plain object and a string key that is its own data property → that value;
 * - an array and an integer index in range → that element;
 * - anything else — a key that is not own, `__proto__`/`constructor`/`prototype`, a string key on
 *   an array (including `length`), any key on a string, number or boolean → missing.
 */
export function member(target: Value, key: Value): Value {
  if (Array.isArray(target)) {
    if (typeof key !== 'number' || !Number.isSafeInteger(key) || key < 0 || key >= target.length) return undefined;
    return ownData(target, String(key));
  }
  if (typeof key !== 'string' || FORBIDDEN_KEYS.has(key) || !isPlainObject(target)) return undefined;
  return ownData(target, key);
}

/** Falsy: missing, `null`, `false`, `0`, `""`, `[]` and `{}`. Everything else is truthy. */
export function truthy(value: Value): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  return Object.keys(value).length > 0;
}

/** Structural equality of JSON values; missing equals `null`; no conversions (`1 == "1"` is false). */
export function equals(a: Value, b: Value): boolean {
  const x = a === undefined ? null : a;
  const y = b === undefined ? null : b;
  if (x === y) return true;
  if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') return false;
  if (Array.isArray(x) || Array.isArray(y)) {
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
    for (let i = 0; i < x.length; i += 1) if (!equals(member(x, i), member(y, i))) return false;
    return true;
  }
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  return keys.every((key) => Object.hasOwn(y, key) && equals(member(x, key), member(y, key)));
}

/** `<`, `<=`, `>`, `>=`: two numbers, or two strings (by UTF-16 code units); anything else is false. */
export function orderedCompare(op: '<' | '<=' | '>' | '>=', a: Value, b: Value): boolean {
  const comparable = (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
  if (!comparable) return false;
  switch (op) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
  }
}

/**
 * `needle in haystack`: an element of a list (structural equality), a substring of a string, or
 * an own key of an object. False for anything else, including a missing haystack.
 */
export function includes(haystack: Value, needle: Value): boolean {
  if (Array.isArray(haystack)) return haystack.some((_, i) => equals(member(haystack, i), needle));
  if (typeof haystack === 'string') return typeof needle === 'string' && haystack.includes(needle);
  if (isPlainObject(haystack)) return typeof needle === 'string' && member(haystack, needle) !== undefined;
  return false;
}

/** Characters rendered into one template, at most: the protocol's limit on human text. */
export const MAX_RENDERED_CHARS = 16 * 1024;

/**
 * A value as template text: strings as they are, numbers and booleans as JSON writes them,
 * missing and `null` as nothing, lists as `[a, b]` (strings unquoted, as in "Checklist 未完成:
 * [chk-001, chk-002]"), objects as JSON.
 */
export function render(value: Value): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    return `[${value.map((item: Value) => (typeof item === 'object' && item !== null ? JSON.stringify(item) : render(item))).join(', ')}]`;
  }
  return JSON.stringify(value);
}

/** The kind of a value, as type problems name it. */
export type Kind = 'missing' | 'null' | 'boolean' | 'number' | 'string' | 'list' | 'object';

export function kindOf(value: Value): Kind {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  return typeof value as 'boolean' | 'number' | 'string' | 'object';
}

/** `a list`, `an object`, `null`, `a number`: a kind in a sentence. */
export function kindPhrase(kind: Kind): string {
  if (kind === 'null' || kind === 'missing') return kind;
  return kind === 'object' ? 'an object' : `a ${kind}`;
}

/**
 * Why `op` cannot read its operands, or undefined when it can (see docs/hooks.md, "Values of
 * the wrong type"). A present value of a type the operator does not take is not "no match": an
 * agent writes the context, and `["rm", "-rf", "/"]` where a rule expects a string would
 * otherwise slip past `matches /rm\s+-rf/`. The caller reports the problem, and a restricting
 * rule whose condition came out false fails closed, as for a missing field. Missing operands are
 * not problems here: they are reported as missing.
 */
export function operandProblem(op: string, a: Value, b: Value): string | undefined {
  if (a === undefined || b === undefined) {
    // `matches`, the functions: only `a` exists. Everything else needs both to judge.
    if (op !== 'matches' || a === undefined) return undefined;
  }
  const [ka, kb] = [kindOf(a), kindOf(b)];
  switch (op) {
    case 'matches':
      return ka === 'string' ? undefined : 'a string';
    case 'startswith':
    case 'endswith':
      if (ka !== 'string' || kb !== 'string') return 'two strings';
      if (op === 'startswith' && nonNormalPathUnderPrefix(a as string, b as string)) {
        return 'a path in normal form (no "..", "." or empty segments) to compare with a path prefix: compare path_normalize(…)';
      }
      return undefined;
    case '==':
    case '!=':
      return ka === kb || ka === 'null' || kb === 'null' ? undefined : 'two values of the same type';
    case '<':
    case '<=':
    case '>':
    case '>=':
      return ka === kb && (ka === 'number' || ka === 'string') ? undefined : 'two numbers or two strings';
    case 'in':
    case 'not in':
      return membershipProblem(b, a);
    case 'contains':
      return membershipProblem(a, b);
    default:
      return undefined;
  }
}

/** `needle in haystack` with a needle the haystack cannot hold (see {@link includes}). */
function membershipProblem(haystack: Value, needle: Value): string | undefined {
  const kn = kindOf(needle);
  if (kn === 'null') return undefined;
  if (Array.isArray(haystack)) {
    if (haystack.length === 0) return undefined;
    return haystack.some((item: Value) => kindOf(item) === kn) ? undefined : 'an element of the same type as the list\'s elements';
  }
  if (typeof haystack === 'string' || isPlainObject(haystack)) return kn === 'string' ? undefined : 'a string';
  return 'a list, string or object to look in';
}

/**
 * A string that is an absolute path with a `..`, `.` or empty segment, compared with an absolute
 * path prefix: the textual answer says nothing about where the path leads.
 */
function nonNormalPathUnderPrefix(value: string, prefix: string): boolean {
  return prefix.startsWith('/') && value.startsWith('/') && normalizePosixPath(value) !== value;
}
