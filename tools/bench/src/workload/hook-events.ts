/**
 * The workload: `pre-tool-use` hook contexts of about 1 KB, shaped like what a coding agent sends
 * before a tool call (tool and input, working directory, and under `extra` the transcript path,
 * git state, recent files, an excerpt of the prompt). Every baseline and every product phase sends these same
 * events, so the figures are comparable.
 *
 * The mix is fixed by the index: 90 % ordinary calls the default rules allow, 5 % `git push
 * --force` (rewritten to `--force-with-lease`), 5 % `rm -rf ~` (denied).
 */
import type { JsonObject } from '@ahp/protocol';

/** The trigger every benchmark hook uses: the gate in front of each tool call. */
export const BENCH_TRIGGER = 'pre-tool-use';

/** Target size of one serialized context, in bytes. */
export const TARGET_CONTEXT_BYTES = 1024;

/** What the default rules do with an event of the mix. */
export type ExpectedOutcome = 'allow' | 'rewrite' | 'deny';

/** One benchmark event. */
export interface HookEvent {
  /** The hook context (the body of the `hook` frame). */
  context: JsonObject;
  expected: ExpectedOutcome;
}

/**
 * The ordinary calls. Each input carries the event's index, so no two events of a run are the
 * same tool call: rule sets with a circuit breaker on identical calls (docs/spec/circuit-breakers.md#stuttering) would
 * otherwise start blocking a benchmark agent that looks stuck in a loop.
 */
const ORDINARY: readonly { tool: string; input: (n: number) => JsonObject }[] = [
  { tool: 'Bash', input: (n) => ({ command: `npm test -- --run src/invoices/rounding-${n}.spec.ts`, description: 'Run the rounding tests', timeout: 120000 }) },
  { tool: 'Bash', input: (n) => ({ command: `git status --short && git diff --stat -- src/invoices/part-${n}`, description: 'Show what changed', timeout: 30000 }) },
  { tool: 'Read', input: (n) => ({ file_path: `/home/dev/work/acme-billing/src/invoices/line-item-${n}.ts`, offset: 1, limit: 400 }) },
  { tool: 'Edit', input: (n) => ({ file_path: `/home/dev/work/acme-billing/src/invoices/totals-${n}.ts`, old_string: 'Math.round(total * 100) / 100', new_string: 'roundHalfEven(total, 2)' }) },
  { tool: 'Grep', input: (n) => ({ pattern: `roundHalf(Even|Up)\\(`, path: 'src', glob: `**/*-${n}.ts`, output_mode: 'content' }) },
];

/**
 * The events a load generator cycles through (operation `i` sends event `i mod n`): enough that
 * no agent repeats a call within a run, built once so building them is not part of any latency.
 */
export function hookEvents(count: number): HookEvent[] {
  return Array.from({ length: count }, (_, index) => hookEvent(index));
}

/** The event at `index` of the workload: deterministic, so every run sends the same sequence. */
export function hookEvent(index: number): HookEvent {
  const slot = index % 20;
  let expected: ExpectedOutcome = 'allow';
  let tool: JsonObject;
  if (slot === 7) {
    expected = 'rewrite';
    tool = { name: 'Bash', input: { command: `git push --force origin feature/invoice-rounding-${index}`, description: 'Publish the rebased branch', timeout: 60000 } };
  } else if (slot === 13) {
    expected = 'deny';
    tool = { name: 'Bash', input: { command: 'rm -rf ~', description: 'Clean up the build output', timeout: 60000 } };
  } else {
    const kind = ORDINARY[index % ORDINARY.length] as (typeof ORDINARY)[number];
    tool = { name: kind.tool, input: kind.input(index) };
  }
  // Typed as docs/protocol.md says: the rules read `tool` and `cwd`; what a coding agent adds of
  // its own (session, model, git state, a prompt excerpt) goes under `extra`.
  const extra: JsonObject = {
    permission_mode: 'default',
    transcript_path: `/home/dev/.agent/projects/acme-billing/session-${(index % 4096).toString(16).padStart(4, '0')}.jsonl`,
    model: 'frontier-coder-2025-10',
    turn: 1 + (index % 60),
    git: { branch: 'feature/invoice-rounding', head: 'a41c9e07d3b25f6e18c0b94d7a2e5f3c1d08b6a9', dirty_files: index % 9 },
    recent_files: ['src/invoices/rounding.ts', 'src/invoices/totals.ts', 'test/invoices/rounding.spec.ts', 'package.json'],
    env: { NODE_ENV: 'development', CI: 'false', LANG: 'en_US.UTF-8' },
  };
  const context: JsonObject = { tool, cwd: '/home/dev/work/acme-billing', extra };
  extra['prompt_excerpt'] = filler(TARGET_CONTEXT_BYTES - byteLength(context) - ',"prompt_excerpt":""'.length);
  return { context, expected };
}

/** The serialized size of a context, in UTF-8 bytes. */
export function byteLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

const PROSE =
  'The invoice totals are off by a cent when line items are rounded one by one; round once at the end, half to even, and keep the per-line values exact. Update the tests that assumed the old behaviour. ';

/** `length` characters of plain ASCII prose (JSON-safe, one byte each), or nothing for a non-positive length. */
function filler(length: number): string {
  if (length <= 0) return '';
  return PROSE.repeat(Math.ceil(length / PROSE.length)).slice(0, length);
}
