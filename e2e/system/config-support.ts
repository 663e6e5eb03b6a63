/**
 * Helpers for the hooks-configuration system tests: publishing through the store (as the operator
 * API will) or through the built `ahp` CLI, and waiting until every worker process serves a version.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigReplayStatusSchema, type ConfigReplayStatus, type JsonObject, type OperatorIdentity } from '@ahp/protocol';
import { loadOraclePlugins, validateHooksConfig } from '@ahp/oracles';
import { createConfigStore, createKeys, createReplayLog, type RedisConfigStore } from '@ahp/store';
import { expect, inject } from 'vitest';
import { eventually, startSystem, type System, type SystemOptions } from './harness.js';
import { operatorApi, operatorCall, writeOperatorTokens, type OperatorTokens } from './team-support.js';

/** A configuration with one rule: `sudo` in a shell command is blocked (`shell/no-sudo`). */
export const NO_SUDO_CONFIG = `version: 1
hooks:
  pre-tool-use:
    oracles:
      - name: shell
        use: rules
        rules:
          - id: no-sudo
            condition: 'tool.input.command matches /(^|\\s)sudo\\s/'
            intensity: block
            message: "no sudo"
`;

/** {@link NO_SUDO_CONFIG} plus a rule that blocks a plain force push, not --force-with-lease (`shell/no-force-push`). */
export const NO_FORCE_PUSH_CONFIG = `${NO_SUDO_CONFIG}          - id: no-force-push
            condition: 'tool.input.command matches /\\bgit\\s+push\\b.*\\s(--force|-f)(\\s|$)/'
            intensity: block
            message: "no force push"
`;

/** The built CLI (Nx builds `@ahp/cli` before the e2e tests run). */
export const AHP_CLI = fileURLToPath(new URL('../../tools/cli/dist/cli.js', import.meta.url));

/** A started system with operator tokens and a live configuration every worker serves. */
export interface ConfigSystem {
  readonly system: System;
  readonly operators: OperatorTokens;
  /** The operator API's base URL on the first gateway. */
  readonly api: string;
  /** Stops the system and removes the token file (safe after a failed start). */
  stop(): Promise<void>;
}

/**
 * The set-up the configuration tests share: operator tokens written, the system started with them,
 * `live` published through the store and served by every worker before the first hook is sent.
 */
export async function startConfigSystem(
  options: SystemOptions & { readonly operators: readonly OperatorIdentity[]; readonly live: string },
): Promise<ConfigSystem> {
  const { operators: identities, live, ...systemOptions } = options;
  const operators = await writeOperatorTokens(identities);
  let system: System | undefined;
  const stop = async () => {
    await system?.stop();
    await operators.remove();
  };
  try {
    system = await startSystem({ ...systemOptions, gatewayEnv: { ...systemOptions.gatewayEnv, AHP_OPERATOR_TOKENS_FILE: operators.file } });
    const gateway = system.stack.gateways[0];
    if (gateway === undefined) throw new Error('the system started no gateway');
    const api = operatorApi(gateway);
    await allWorkersServe(system, await publishThroughStore(system, live));
    return { system, operators, api, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Waits until the workers have recorded every hook of `hookIds` in the replay log (they record after the decision is stored). */
export async function replayLogHolds(system: System, hookIds: readonly string[], sinceMs: number, untilMs: number): Promise<void> {
  const log = createReplayLog({ redis: system.redis, keys: createKeys({ prefix: system.keyPrefix }) });
  await eventually(async () => {
    const ids = new Set<string>();
    for await (const item of log.read({ sinceMs, untilMs })) if (item.kind === 'record') ids.add(item.record.hook_id);
    return hookIds.every((id) => ids.has(id)) ? true : undefined;
  }, 'every hook in the replay log');
}

/** Submits a replay through the operator API and waits until it completed or failed. */
export async function replayThroughApi(api: string, token: string, body: JsonObject): Promise<ConfigReplayStatus> {
  const submitted = await operatorCall(api, token, 'POST', '/config/replay', body);
  expect(submitted.status).toBe(202);
  const { id } = ConfigReplayStatusSchema.parse(submitted.json);
  return eventually(async () => {
    const status = ConfigReplayStatusSchema.parse((await operatorCall(api, token, 'GET', `/config/replay/${id}`)).json);
    return status.state === 'completed' || status.state === 'failed' ? status : undefined;
  }, 'the replay to finish');
}

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
