/**
 * The gateway's folders form layers: when two folders import each other (directly or around a
 * longer ring), neither can be read, tested or moved without the other, and Nest modules start to
 * need forwardRef. import-x/no-cycle catches cycles between files; this test catches them between
 * the folders of src/, type-only imports included. Shared code goes into a folder of its own
 * (connections/, operator-api/) that the features import.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = import.meta.dirname;

/** Relative specifiers of static imports, re-exports and dynamic imports. */
const RELATIVE_IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/** The folder of src/ a file belongs to; files directly in src/ (the app's wiring) are `.`. */
function folderOf(file: string): string {
  const parts = relative(SRC, file).split(sep);
  return parts.length > 1 ? parts[0]! : '.';
}

/** Edges between folders, each with one import that makes it (for the failure message). */
function folderImports(root: string): Map<string, Map<string, string>> {
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.spec.ts'))
    .map((name) => join(root, name));
  const edges = new Map<string, Map<string, string>>();
  for (const file of files) {
    const from = folderOf(file);
    for (const match of readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)) {
      const to = folderOf(resolve(dirname(file), match[1]!));
      if (to === from) continue;
      const targets = edges.get(from) ?? new Map<string, string>();
      if (!targets.has(to)) targets.set(to, `${relative(root, file)} imports ${match[1]}`);
      edges.set(from, targets);
    }
  }
  return edges;
}

/** Groups of folders that reach each other (Tarjan's strongly connected components of size > 1). */
function folderCycles(edges: ReadonlyMap<string, ReadonlyMap<string, string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1) cycles.push(group.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

describe('folders of apps/gateway/src', () => {
  it('finds a ring of folders, and the imports that close it', () => {
    const edges = new Map([
      ['a', new Map([['b', 'a/x.ts imports ../b/y.js']])],
      ['b', new Map([['c', 'b/y.ts imports ../c/z.js']])],
      ['c', new Map([['a', 'c/z.ts imports ../a/x.js']])],
      ['d', new Map([['a', 'd/w.ts imports ../a/x.js']])],
    ]);
    expect(folderCycles(edges)).toEqual([['a', 'b', 'c']]);
  });

  it('sees the imports between folders (a check that reads nothing would pass the next test)', () => {
    const edges = folderImports(SRC);
    expect(edges.get('agents')?.has('connections')).toBe(true);
    expect(edges.get('.')?.size).toBeGreaterThan(10);
  });

  it('import each other in no cycle', () => {
    const edges = folderImports(SRC);
    const described = folderCycles(edges).map((group) =>
      group.flatMap((from) => group.filter((to) => edges.get(from)?.has(to)).map((to) => edges.get(from)!.get(to)!)),
    );
    expect(described).toEqual([]);
  });
});
