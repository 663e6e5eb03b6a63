// Starts nothing: reads the repository's files. The specification lives in docs/spec; everything
// else cites it by link. This keeps it so: no file outside docs/spec cites the original design
// documents (the "seeds", which are not in the repository), and every reference into docs/spec —
// `docs/spec/<page>.md#<section>` anywhere, and every relative link of a Markdown file that lands
// in docs/spec — names a page that exists and a heading on it. Links from docs/spec to the other
// docs are checked the same way, so the specification never points at a section that moved.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const specDir = 'docs/spec';
const selfPath = relative(repoRoot, fileURLToPath(import.meta.url)).split(sep).join('/');

/** Directories that hold no sources of ours: dependencies, build output, runtime data, reports. */
/** The scratch folders of the adapters' README checks (tools/adapter-harness), made and removed while tests run. */
const SCRATCH_DIR_PREFIX = '.readme-check-';
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', '.nx', '.next', '.data', 'test-results', 'coverage', 'out-tsc', 'tmp']);
/** Text files people write: code, docs, configuration, scripts. */
const TEXT_FILE = /\.(?:[cm]?[jt]sx?|md|ya?ml|json|lua|sh|html|css|txt)$|^Dockerfile$/;
/** Generated or vendored files nobody edits by hand. */
const SKIPPED_FILES = new Set(['package-lock.json']);

/** Repository-relative paths (with `/`) of every text file to check. */
function repositoryFiles(dir = repoRoot): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith(SCRATCH_DIR_PREFIX)) files.push(...repositoryFiles(join(dir, entry.name)));
    } else if (entry.isFile() && TEXT_FILE.test(entry.name) && !SKIPPED_FILES.has(entry.name)) {
      files.push(relative(repoRoot, join(dir, entry.name)).split(sep).join('/'));
    }
  }
  return files;
}

const files = repositoryFiles();
/**
 * A file's text; '' for one gone since the listing: other projects' tests run beside this one
 * and make and remove scratch files inside the tree (seen in CI: a README check's snippet).
 */
const read = (path: string): string => {
  try {
    return readFileSync(join(repoRoot, path), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
};

/**
 * Citations of the design documents: a numbered seed ("seed 001", "Seed 4", "seeds 000 and 002"),
 * a section of one ("seed §4.3", "the seed's §6.2"), a bare section number only they use (the
 * docs number their own sections differently: §4.x is docs/protocol.md's frame reference), their
 * folder, or the documents by name.
 */
const CITATION = [
  /\bseeds?[\s_-]?0{0,2}[0-4]\b/i,
  /\bseed(?:'s|s'|s)?\s*§/i,
  /§\s?(?:1\.2|2\.[12]|3\.[1-4]|5\.[1-3]|6\.[12])\b/,
  /\bseeds\//i,
  /\bseed doc(?:ument)?s?\b/i,
];
/**
 * Unnumbered mentions ("as in the seed", "the seed's rules", "seed defaults", "(seed: 20)"). A
 * random-number seed is spelled the same way, so files about seeded randomness (the chaos tool,
 * the benchmark, the chaos findings) are left out of this one check.
 */
const MENTION =
  /\b(?:the|a|this|each)\s+seeds?(?:'s|')?\b|\bseed(?:'s|s')\s|\bseed:\s|\bseed (?:conditions?|fields?|rules?|syntax|defaults?|plan|payload|shape|limits?|examples?|model|triggers?|order|mode of)\b/i;
const SEEDED_RANDOMNESS = [/^tools\/chaos\//, /^tools\/bench\//, /^docs\/reliability\.md$/];

/**
 * Where `pattern` matches in `text`, as `path:line: text`. Lines are joined first (without their
 * comment markers), so a citation wrapped across two lines of a comment is found too; a pattern
 * that spells a space as ` ` rather than `\s` stays within one line.
 */
function hits(path: string, text: string, pattern: RegExp): string[] {
  const lines = text.split('\n');
  const starts: number[] = [];
  let joined = '';
  lines.forEach((line, index) => {
    starts.push(joined.length);
    joined += (index === 0 ? line : line.replace(/^\s*(?:\*|\/\/|#|<!--)?\s*/, '')) + '\n';
  });
  const found = new Set<string>();
  for (const match of joined.matchAll(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`))) {
    let line = 0;
    while (line + 1 < starts.length && (starts[line + 1] ?? Infinity) <= match.index) line++;
    found.add(`${path}:${line + 1}: ${(lines[line] ?? '').trim()}`);
  }
  return [...found];
}

/** GitHub's anchor of a heading: lowercase, punctuation dropped (not `-` or `_`), spaces to `-`. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings (outside code fences), with GitHub's `-1`, `-2` for repeats. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const fenceMark = /^\s*(```|~~~)/.exec(line)?.[1];
    if (fenceMark !== undefined) {
      if (fence === undefined) fence = fenceMark;
      else if (fence === fenceMark) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

const anchorCache = new Map<string, Set<string> | null>();
/** The anchors of the Markdown file at `path`, or `null` when it does not exist. */
function anchorsAt(path: string): Set<string> | null {
  if (!anchorCache.has(path)) {
    let anchors: Set<string> | null;
    try {
      anchors = anchorsOf(read(path));
    } catch {
      anchors = null; // no such file
    }
    anchorCache.set(path, anchors);
  }
  return anchorCache.get(path) ?? null;
}

interface Reference {
  from: string;
  line: number;
  target: string;
  anchor: string | undefined;
}

/** `docs/spec/<page>.md#<anchor>` written out, in any file (comments, test names, docs). */
function specPathReferences(path: string, text: string): Reference[] {
  const refs: Reference[] = [];
  text.split('\n').forEach((line, index) => {
    for (const match of line.matchAll(/\bdocs\/spec\/([\w.-]+\.md)(?:#([\w-]+))?/g)) {
      refs.push({ from: path, line: index + 1, target: `${specDir}/${match[1]}`, anchor: match[2] });
    }
  });
  return refs;
}

/** Relative links of a Markdown file, `[text](target#anchor)` and `(#anchor)`, resolved from the file. */
function markdownLinks(path: string, text: string): Reference[] {
  const refs: Reference[] = [];
  text.split('\n').forEach((line, index) => {
    for (const match of line.matchAll(/\]\(([^)\s]*)\)/g)) {
      const link = match[1] ?? '';
      if (link === '' || /^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // http:, mailto:, …
      const [file = '', anchor] = link.split('#');
      if (file !== '' && !file.endsWith('.md')) continue;
      const target = file === '' ? path : relative(repoRoot, resolve(repoRoot, dirname(path), file)).split(sep).join('/');
      refs.push({ from: path, line: index + 1, target, anchor });
    }
  });
  return refs;
}

/** What is wrong with `ref`, or `undefined` when its page and heading exist. */
function brokenReason(ref: Reference): string | undefined {
  const anchors = anchorsAt(ref.target);
  if (anchors === null) return `${ref.from}:${ref.line}: ${ref.target} does not exist`;
  if (ref.anchor !== undefined && !anchors.has(ref.anchor)) return `${ref.from}:${ref.line}: ${ref.target} has no heading #${ref.anchor}`;
  return undefined;
}

describe('the specification in docs/spec', () => {
  it('is there: an index, the glossary and the pages it lists', () => {
    const index = read(`${specDir}/README.md`);
    const pages = [...index.matchAll(/\]\(([\w-]+\.md)\)/g)].map((match) => match[1]);
    expect(pages).toContain('glossary.md');
    expect(pages.length).toBeGreaterThanOrEqual(9);
    for (const page of pages) expect(anchorsAt(`${specDir}/${page}`), page).not.toBeNull();
  });

  it('is the only place that cites the original design documents', () => {
    const outside = files.filter((path) => !path.startsWith(`${specDir}/`) && path !== selfPath);
    const citations = outside.flatMap((path) => {
      const text = read(path);
      const numbered = CITATION.flatMap((pattern) => hits(path, text, pattern));
      const mentions = SEEDED_RANDOMNESS.some((dir) => dir.test(path)) ? [] : hits(path, text, MENTION);
      return [...new Set([...numbered, ...mentions])];
    });
    expect(citations, 'cite docs/spec/<page>.md#<section> instead').toEqual([]);
  });

  it('is cited by links that all resolve to a page and a heading', () => {
    const refs = files.filter((path) => path !== selfPath).flatMap((path) => {
      const text = read(path);
      const links = path.endsWith('.md') ? markdownLinks(path, text).filter((ref) => ref.target.startsWith(`${specDir}/`) || path.startsWith(`${specDir}/`)) : [];
      return [...specPathReferences(path, text), ...links];
    });
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.flatMap((ref) => brokenReason(ref) ?? [])).toEqual([]);
  });

  it('computes anchors as GitHub does', () => {
    const anchors = anchorsOf(['# Title', '## 1. Endpoint and authentication', '### `hello`', '## Requests and responses (approvals, shutdown)', '## Title', '```yaml', '# not a heading', '```'].join('\n'));
    expect([...anchors]).toEqual(['title', '1-endpoint-and-authentication', 'hello', 'requests-and-responses-approvals-shutdown', 'title-1']);
  });
});
