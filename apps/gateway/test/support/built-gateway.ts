/**
 * Runs the gateway as its own process, the way the start script does: `node main.js` with an
 * environment. The sources are transpiled with SWC (decorator metadata included) into a temp
 * folder, so the spec does not depend on a previous `build` of this project; the folder links the
 * workspace's node_modules so the packages resolve as they do for `dist/`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { transformFile } from '@swc/core';

const projectDir = join(import.meta.dirname, '..', '..');
const workspaceDir = join(projectDir, '..', '..');

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Transpiles `src/` into a temp folder; returns the folder (remove it with `rm`). */
export async function buildGateway(): Promise<string> {
  const out = await mkdtemp(join(tmpdir(), 'ahp-gateway-build-'));
  const srcDir = join(projectDir, 'src');
  for (const file of await sourceFiles(srcDir)) {
    const { code } = await transformFile(file, {
      swcrc: false,
      configFile: false,
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
        keepClassNames: true,
      },
      module: { type: 'es6' },
    });
    const target = join(out, relative(srcDir, file)).replace(/\.ts$/, '.js');
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, code);
  }
  await writeFile(join(out, 'package.json'), JSON.stringify({ type: 'module' }));
  await symlink(join(workspaceDir, 'node_modules'), join(out, 'node_modules'), 'dir');
  return out;
}

export async function removeBuild(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** A running gateway process and what it printed. */
export interface GatewayProcess {
  readonly child: ChildProcess;
  readonly stdoutLines: string[];
  readonly stderrLines: string[];
  /** The first stdout line, parsed (the ready line), or a rejection if the process exits first. */
  readonly ready: Promise<Record<string, unknown>>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `node <build>/main.js` with exactly `env` (plus PATH). */
export function spawnGateway(buildDir: string, env: Record<string, string>): GatewayProcess {
  const child = spawn(process.execPath, [join(buildDir, 'main.js')], {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdoutLines: string[] = [];
  const stderrLines: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      stdoutLines.push(line);
      if (stdoutLines.length === 1) {
        try {
          resolve(JSON.parse(line) as Record<string, unknown>);
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      }
    });
    void exited.then(({ code }) => reject(new Error(`gateway exited (code ${code}) before its ready line:\n${stderrLines.slice(-5).join('\n')}`)));
  });
  ready.catch(() => undefined);
  createInterface({ input: child.stderr! }).on('line', (line) => stderrLines.push(line));
  return { child, stdoutLines, stderrLines, ready, exited };
}
