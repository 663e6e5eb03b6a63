import { describe, expect, it } from 'vitest';
import { runTool } from './tool-runner.js';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('runTool', () => {
  it('returns the output and exit code of a tool that finishes in time', async () => {
    const result = await runTool({
      command: process.execPath,
      args: ['-e', 'process.stdin.pipe(process.stdout); process.stderr.write("warn"); process.exitCode = 3'],
      stdin: 'hello',
      timeoutS: 30,
    });
    expect(result).toEqual({ ok: true, exitCode: 3, signal: null, stdout: 'hello', stderr: 'warn' });
  });

  it('kills a tool that runs past its timeout and answers E_TIMEOUT', async () => {
    const result = await runTool({
      command: process.execPath,
      args: ['-e', 'console.log("started"); setInterval(() => undefined, 1000)'],
      timeoutS: 0.5,
    });
    expect(result).toMatchObject({ ok: false, code: 'E_TIMEOUT', stdout: 'started\n' });
    expect(result.ok === false && result.message).toMatch(/longer than 0.5s/);
    const pid = result.ok ? undefined : result.pid;
    expect(pid).toBeTypeOf('number');
    expect(isAlive(pid!)).toBe(false);
  });

  it('caps the output it keeps', async () => {
    const result = await runTool({ command: process.execPath, args: ['-e', 'process.stdout.write("x".repeat(5000))'], timeoutS: 30, maxOutputBytes: 10 });
    expect(result).toMatchObject({ ok: true, stdout: 'x'.repeat(10) });
  });

  it('rejects when the tool cannot be started', async () => {
    await expect(runTool({ command: '/nonexistent/tool', timeoutS: 1 })).rejects.toThrow(/ENOENT/);
  });
});
