/**
 * Loading `.ahp/hooks.yaml`: YAML text → validated {@link HooksConfig}, every problem located by
 * line, column and field path (positions from the `yaml` package's node ranges).
 */
import { HooksConfigSchema, formatPath } from '@ahp/protocol';
import type { HooksConfig } from '@ahp/protocol';
import { LineCounter, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Document, Node as YamlNode, Scalar } from 'yaml';
import type { z } from 'zod';
import type { ConfigIssue, PathSegment, RawIssue } from './issues.js';

/** Largest configuration text accepted: 1 MiB (a hooks.yaml is a few KB). */
export const MAX_HOOKS_CONFIG_CHARS = 1024 * 1024;
/** Largest number of YAML aliases expanded (a guard against "billion laughs" documents). */
const MAX_ALIASES = 100;
/** Issues reported at most: a broken file should not produce a report larger than itself. */
const MAX_ISSUES = 50;

/** A parsed YAML document with what is needed to locate problems in it. */
export interface LocatedDocument {
  readonly source: string;
  readonly document: Document;
  readonly lineCounter: LineCounter;
}

export type ParseResult = { ok: true; config: HooksConfig } | { ok: false; issues: ConfigIssue[] };

/**
 * Parses and validates a hooks configuration: YAML syntax (duplicate keys are errors), then the
 * schema (`HooksConfigSchema`: field types, known triggers, intensities the trigger allows, …).
 * Expressions, oracle names and built-in options are checked by `validateHooksConfig`.
 */
export function parseHooksConfig(source: string): ParseResult {
  const parsed = parseLocated(source);
  return parsed.ok ? { ok: true, config: parsed.config } : { ok: false, issues: parsed.issues };
}

/** {@link parseHooksConfig}, also returning the document so later problems can be located. */
export function parseLocated(source: string): (ParseResult & { ok: false }) | { ok: true; config: HooksConfig; located: LocatedDocument } {
  if (typeof source !== 'string') return { ok: false, issues: [{ line: 0, column: 0, path: '', message: 'the configuration must be text' }] };
  if (source.length > MAX_HOOKS_CONFIG_CHARS) {
    return { ok: false, issues: [{ line: 1, column: 1, path: '', message: `the file is larger than ${MAX_HOOKS_CONFIG_CHARS} characters` }] };
  }
  const lineCounter = new LineCounter();
  const document = parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true, strict: true });
  const located: LocatedDocument = { source, document, lineCounter };
  if (document.errors.length > 0) {
    const issues = document.errors.slice(0, MAX_ISSUES).map((error) => {
      const at = position(located, error.pos[0]);
      return { ...at, path: '', message: `YAML syntax error: ${error.message}` };
    });
    return { ok: false, issues };
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (error) {
    return { ok: false, issues: [{ line: 1, column: 1, path: '', message: `YAML error: ${(error as Error).message}` }] };
  }
  if (value === null || value === undefined) {
    return { ok: false, issues: [{ line: 1, column: 1, path: '', message: 'the file is empty: expected a mapping with "hooks"' }] };
  }
  const result = HooksConfigSchema.safeParse(value);
  if (!result.success) {
    const issues = result.error.issues.flatMap((issue) => fromZodIssue(issue, []));
    return { ok: false, issues: locateAll(located, issues) };
  }
  return { ok: true, config: result.data, located };
}

/** Locates raw issues in a document (de-duplicated, at most {@link MAX_ISSUES}). */
export function locateAll(located: LocatedDocument | undefined, issues: readonly RawIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  const out: ConfigIssue[] = [];
  for (const issue of issues) {
    const at = located === undefined || issue.at === 'none' ? { line: 0, column: 0 } : locate(located, issue);
    const result = { ...at, path: formatPath(issue.path), message: issue.message };
    const key = JSON.stringify(result);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(result);
    if (out.length >= MAX_ISSUES) break;
  }
  return out;
}

type ZodIssue = z.core.$ZodIssue;

/**
 * One zod issue as raw issues: an unknown key points at the key itself; of a failed union, the
 * branch that got furthest is reported (its messages say more than "Invalid input").
 */
export function fromZodIssue(issue: ZodIssue, prefix: readonly PathSegment[]): RawIssue[] {
  const path = [...prefix, ...(issue.path as PathSegment[])];
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ path: [...path, key], message: `unknown field "${key}"`, at: 'key' as const }));
  }
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const best = [...issue.errors].sort((a, b) => depth(b) - depth(a))[0] ?? [];
    if (best.length > 0 && depth(best) > 0) return best.flatMap((inner) => fromZodIssue(inner, path));
  }
  const params = (issue as { params?: { at?: unknown } }).params;
  return [{ path, message: issue.message, ...(params?.at === 'key' ? { at: 'key' as const } : {}) }];
}

function depth(issues: readonly ZodIssue[]): number {
  return Math.max(0, ...issues.map((issue) => issue.path.length + (issue.code === 'invalid_type' ? 0 : 0.5)));
}

/** 1-based line and column of a character offset. */
function position(located: LocatedDocument, offset: number): { line: number; column: number } {
  const { line, col } = located.lineCounter.linePos(Math.max(0, Math.min(offset, located.source.length)));
  return { line, column: col };
}

/**
 * Where an issue is: the node at its path (the key, for `at: 'key'`); for a field that is
 * missing, the nearest enclosing node; for an expression error, the character inside the scalar.
 */
function locate(located: LocatedDocument, issue: RawIssue): { line: number; column: number } {
  let node: unknown = located.document.contents;
  let key: YamlNode | undefined;
  let found = true;
  for (const segment of issue.path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
      if (pair === undefined) {
        found = false;
        break;
      }
      key = pair.key as YamlNode;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number' && node.items[segment] !== undefined) {
      key = undefined;
      node = node.items[segment];
    } else {
      found = false;
      break;
    }
  }
  if (found && issue.at === 'key' && key?.range) return position(located, key.range[0]);
  const target = node as YamlNode | null | undefined;
  if (target === null || target === undefined || !target.range) {
    return key?.range ? position(located, key.range[0]) : { line: 1, column: 1 };
  }
  if (found && issue.offset !== undefined && isScalar(target)) {
    return position(located, offsetInScalar(located.source, target, issue.offset));
  }
  return position(located, target.range[0]);
}

/**
 * The source offset of character `offset` of a scalar's value, when the scalar's text maps onto
 * its value one to one (plain, quoted without escapes, literal block); otherwise its start.
 */
function offsetInScalar(source: string, scalar: Scalar, offset: number): number {
  const [start, end] = scalar.range ?? [0, 0];
  const value = String(scalar.value);
  const raw = source.slice(start, end);
  const exact = (at: number) => (offset >= value.length || source.charAt(at) === value.charAt(offset) ? at : start);
  switch (scalar.type) {
    case 'PLAIN':
      return raw === value ? exact(start + offset) : start;
    case 'QUOTE_DOUBLE':
    case 'QUOTE_SINGLE':
      return raw.slice(1, -1) === value ? exact(start + 1 + offset) : start;
    case 'BLOCK_LITERAL': {
      const before = value.slice(0, offset);
      const lineIndex = before.split('\n').length - 1;
      const column = offset - (before.lastIndexOf('\n') + 1);
      const headerEnd = raw.indexOf('\n');
      if (headerEnd === -1) return start;
      const lines = raw.slice(headerEnd + 1).split('\n');
      const indent = /^ */.exec(lines.find((line) => line.trim() !== '') ?? '')?.[0].length ?? 0;
      let at = start + headerEnd + 1;
      for (let i = 0; i < lineIndex; i += 1) at += (lines[i] ?? '').length + 1;
      return exact(at + indent + column);
    }
    default:
      return start;
  }
}
