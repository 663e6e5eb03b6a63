/**
 * `ahp start` and `ahp bench` as processes: the built CLI hands the rest of the command line to
 * the main job and to the benchmark (their own --help here, so nothing long-running starts) and
 * passes their exit codes on.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');

function ahp(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('delegated commands', () => {
  it('lists start and bench in the main help', async () => {
    const { code, stdout } = await ahp(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/ahp start \[options\]\s+start the stack/);
    expect(stdout).toMatch(/ahp bench \[options\]\s+run the benchmark/);
  });

  it('hands --help to the main job and to the benchmark', async () => {
    const start = await ahp(['start', '--help']);
    expect(start.code).toBe(0);
    expect(start.stdout).toContain('Usage: npm start');
    expect(start.stdout).toContain('--no-demo');
    const bench = await ahp(['bench', '--help']);
    expect(bench.code).toBe(0);
    expect(bench.stdout).toContain('--smoke');
  });

  it('passes a failing exit code on', async () => {
    const { code, stderr } = await ahp(['bench', '--no-such-option']);
    expect(code).not.toBe(0);
    expect(stderr.length).toBeGreaterThan(0);
  });
});
