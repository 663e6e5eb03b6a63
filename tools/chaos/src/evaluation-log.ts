/**
 * Reads what the test oracle (fixtures/chaos-oracle.mjs) wrote: one line per evaluation start,
 * `<hookId> <epoch ms>`, in one file per worker process (`<pid>.log`). A hook evaluated more
 * than once was re-run after its worker died or stalled: a duplicate evaluation, harmless as long
 * as only the first decision reaches the agent.
 */
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** One evaluation start. */
export interface Evaluation {
  readonly hookId: string;
  readonly pid: number;
  readonly at: number;
}

/** Totals over the evaluations of a run. */
export interface EvaluationSummary {
  readonly evaluations: number;
  readonly hooksEvaluated: number;
  /** Evaluations beyond the first of each hook. */
  readonly duplicateEvaluations: number;
  readonly hooksEvaluatedMoreThanOnce: number;
  readonly mostEvaluationsOfOneHook: number;
  /**
   * Hooks evaluated more than once although no worker fault hit their evaluation: a lock lost
   * while the worker was alive (event loop or Redis too slow for the lock) or a retried attempt.
   */
  readonly reEvaluatedWithoutWorkerFault: number;
}

/** The evaluations in complete lines of `text`; malformed lines are skipped. */
export function parseEvaluationLines(text: string, pid: number): Evaluation[] {
  const out: Evaluation[] = [];
  for (const line of text.split('\n')) {
    const [hookId, at] = line.trim().split(' ');
    if (hookId === undefined || hookId === '' || at === undefined || !/^\d+$/.test(at)) continue;
    out.push({ hookId, pid, at: Number(at) });
  }
  return out;
}

/** Counts evaluations per hook; `hitByWorkerFaults` are the hooks whose worker was killed or stopped mid-job. */
export function summarizeEvaluations(evaluations: readonly Evaluation[], hitByWorkerFaults: ReadonlySet<string> = new Set()): EvaluationSummary {
  const perHook = new Map<string, number>();
  for (const evaluation of evaluations) perHook.set(evaluation.hookId, (perHook.get(evaluation.hookId) ?? 0) + 1);
  let duplicateEvaluations = 0;
  let hooksEvaluatedMoreThanOnce = 0;
  let mostEvaluationsOfOneHook = 0;
  let reEvaluatedWithoutWorkerFault = 0;
  for (const [hookId, count] of perHook) {
    duplicateEvaluations += count - 1;
    if (count > 1) hooksEvaluatedMoreThanOnce += 1;
    if (count > 1 && !hitByWorkerFaults.has(hookId)) reEvaluatedWithoutWorkerFault += 1;
    mostEvaluationsOfOneHook = Math.max(mostEvaluationsOfOneHook, count);
  }
  return {
    evaluations: evaluations.length,
    hooksEvaluated: perHook.size,
    duplicateEvaluations,
    hooksEvaluatedMoreThanOnce,
    mostEvaluationsOfOneHook,
    reEvaluatedWithoutWorkerFault,
  };
}

/** Follows the per-process files of one directory, reading only what was appended since the last {@link refresh}. */
export class EvaluationLog {
  readonly #dir: string;
  readonly #offsets = new Map<string, number>();
  readonly #evaluations: Evaluation[] = [];

  constructor(dir: string) {
    this.#dir = dir;
  }

  /** Reads the lines appended since the last call. A line still being written waits for the next call. */
  async refresh(): Promise<void> {
    let names: string[];
    try {
      names = (await readdir(this.#dir)).filter((name) => /^\d+\.log$/.test(name));
    } catch {
      return; // no worker has evaluated anything yet
    }
    for (const name of names) {
      const offset = this.#offsets.get(name) ?? 0;
      const handle = await open(join(this.#dir, name), 'r');
      try {
        const { size } = await handle.stat();
        if (size <= offset) continue;
        const buffer = Buffer.alloc(size - offset);
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
        const text = buffer.subarray(0, bytesRead).toString('utf8');
        const complete = text.lastIndexOf('\n') + 1;
        this.#offsets.set(name, offset + Buffer.byteLength(text.slice(0, complete)));
        this.#evaluations.push(...parseEvaluationLines(text.slice(0, complete), Number.parseInt(name, 10)));
      } finally {
        await handle.close();
      }
    }
  }

  /** Every evaluation read so far. */
  all(): readonly Evaluation[] {
    return this.#evaluations;
  }

  /** The evaluations process `pid` started. */
  byPid(pid: number): Evaluation[] {
    return this.#evaluations.filter((evaluation) => evaluation.pid === pid);
  }
}
