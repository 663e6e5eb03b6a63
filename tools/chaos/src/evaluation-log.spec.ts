import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EvaluationLog, parseEvaluationLines, summarizeEvaluations } from './evaluation-log.js';

describe('parseEvaluationLines', () => {
  it('reads "<hookId> <ms>" lines and skips malformed ones', () => {
    expect(parseEvaluationLines('h1 100\n\nbad\nh2 x\nh3 300\n', 7)).toEqual([
      { hookId: 'h1', pid: 7, at: 100 },
      { hookId: 'h3', pid: 7, at: 300 },
    ]);
  });
});

describe('summarizeEvaluations', () => {
  it('counts evaluations beyond the first of each hook as duplicates', () => {
    const e = (hookId: string) => ({ hookId, pid: 1, at: 0 });
    expect(summarizeEvaluations([e('a'), e('b'), e('a'), e('a'), e('c'), e('b')], new Set(['a']))).toEqual({
      evaluations: 6,
      hooksEvaluated: 3,
      duplicateEvaluations: 3,
      hooksEvaluatedMoreThanOnce: 2,
      mostEvaluationsOfOneHook: 3,
      // "a" was on a worker that was killed; "b" ran twice without such a reason.
      reEvaluatedWithoutWorkerFault: 1,
    });
  });
});

describe('EvaluationLog', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chaos-evaluations-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads each process file incrementally and leaves a half-written line for later', async () => {
    const log = new EvaluationLog(join(dir, 'missing'));
    await log.refresh();
    expect(log.all()).toEqual([]);

    const evaluations = new EvaluationLog(dir);
    await appendFile(join(dir, '11.log'), 'h1 100\nh2 2');
    await appendFile(join(dir, 'not-a-worker.txt'), 'h9 1\n');
    await evaluations.refresh();
    expect(evaluations.all()).toEqual([{ hookId: 'h1', pid: 11, at: 100 }]);
    await appendFile(join(dir, '11.log'), '00\n');
    await appendFile(join(dir, '12.log'), 'h1 400\n');
    await evaluations.refresh();
    expect(evaluations.all()).toHaveLength(3);
    expect(evaluations.byPid(11).map((e) => e.hookId)).toEqual(['h1', 'h2']);
    expect(evaluations.byPid(11)[1]).toEqual({ hookId: 'h2', pid: 11, at: 200 });
    expect(evaluations.byPid(12)).toEqual([{ hookId: 'h1', pid: 12, at: 400 }]);
  });
});
