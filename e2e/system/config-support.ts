/**
 * Helpers for the hooks-configuration system tests: publishing through the store (as the operator
 * API will) or through the built `ahp` CLI, and waiting until every worker process serves a version.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadOraclePlugins, validateHooksConfig } from '@ahp/oracles';
import { createConfigStore, createKeys, type RedisConfigStore } from '@ahp/store';
import { inject } from 'vitest';
import { eventually, type System } from './harness.js';

/** The built CLI (Nx builds `@ahp/cli` before the e2e tests run). */
export const AHP_CLI = fileURLToPath(new URL('../../tools/cli/dist/cli.js', import.meta.url));

/** The config store of a system's deployment. */
export function configStore(system: System): RedisConfigStore {
  return createConfigStore({ redis: system.redis, keys: createKeys({ prefix: system.keyPrefix }) });
}

/**
 * Validates `source` as the CLI would (with the given oracle plugins) and publishes it through the
 * store. Throws with the issues when it is invalid.
 */
export async function publishThroughStore(system: System, source: string, options: { by?: string; plugins?: string[] } = {}): Promise<number> {
  const plugins = options.plugins === undefined ? [] : await loadOraclePlugins(options.plugins);
  const result = validateHooksConfig(source, { plugins });
  if (!result.ok) throw new Error(`invalid test configuration:\n${result.issues.map((i) => `${i.line}:${i.column} ${i.path}: ${i.message}`).join('\n')}`);
  const outcome = await configStore(system).publish({ source, config: result.config, publishedBy: options.by ?? 'e2e', now: Date.now() });
  return outcome.version;
}

/** What a run of the CLI printed. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node tools/cli/dist/cli.js …args` against the system's Redis and key prefix. */
export function runAhp(system: System, args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AHP_CLI, ...args], {
      cwd: system.dir,
      env: { ...process.env, REDIS_URL: inject('redisUrl'), AHP_KEY_PREFIX: system.keyPrefix, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The log file of a service (the harness gives the stack a log directory). */
export async function serviceLog(system: System, name: string): Promise<string> {
  try {
    return await readFile(join(system.dir, `${name}.log`), 'utf8');
  } catch {
    return '';
  }
}

/** Waits until every worker process logged that `version` is active. */
export async function allWorkersServe(system: System, version: number, timeoutMs = 15_000): Promise<void> {
  await eventually(
    async () => {
      for (const worker of system.stack.workers) {
        const log = await serviceLog(system, worker.name);
        if (!log.includes(`"hooks configuration version ${version} active`)) return undefined;
      }
      return true;
    },
    `every worker to serve hooks configuration version ${version}`,
    timeoutMs,
  );
}

/** Waits until every worker evaluates shadow `shadow` beside the live version (its log says so). */
export async function allWorkersShadow(system: System, shadow: number, timeoutMs = 15_000): Promise<void> {
  await eventually(
    async () => {
      for (const worker of system.stack.workers) {
        if (!(await serviceLog(system, worker.name)).includes(`"shadow configuration ${shadow} evaluated beside the live one"`)) return undefined;
      }
      return true;
    },
    `every worker to evaluate shadow ${shadow}`,
    timeoutMs,
  );
}
