/**
 * Asks each app which environment variables it reads: `node <entry> --describe-config` prints
 * a JSON array of {name, required, default, description} and exits without connecting anywhere.
 * Running the built app keeps this tool black-box: it never imports an app's code.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { AppService, ConfigVariable } from './check-compose.js';

/** The apps that run as compose services, their built entry points and replica floors: the stack on one Redis, and the `cluster` profile's. */
export const COMPOSE_APPS = [
  { service: 'gateway', entry: 'apps/gateway/dist/main.js', minReplicas: 1 },
  { service: 'oracle-worker', entry: 'apps/oracle-worker/dist/main.js', minReplicas: 2 },
  { service: 'gateway-cluster', entry: 'apps/gateway/dist/main.js', minReplicas: 1 },
  { service: 'oracle-worker-cluster', entry: 'apps/oracle-worker/dist/main.js', minReplicas: 2 },
] as const;

/** The profile that runs the stack on a Redis Cluster (docs/deploy.md §8). */
export const CLUSTER_PROFILE = { name: 'cluster', minMasters: 3 } as const;

/** {@link COMPOSE_APPS} with their configuration, each app's entry asked once (the cluster services run the same apps). */
export function describeComposeApps(workspaceRoot: string): AppService[] {
  const byEntry = new Map<string, ConfigVariable[]>();
  return COMPOSE_APPS.map((app) => {
    const config = byEntry.get(app.entry) ?? describeAppConfig(workspaceRoot, app.entry);
    byEntry.set(app.entry, config);
    return { service: app.service, minReplicas: app.minReplicas, config };
  });
}

export function describeAppConfig(workspaceRoot: string, entry: string): ConfigVariable[] {
  const result = spawnSync(process.execPath, [join(workspaceRoot, entry), '--describe-config'], {
    encoding: 'utf8',
    timeout: 20_000,
    // Only what Node needs: the description must not depend on this shell's configuration.
    env: { PATH: process.env['PATH'] ?? '' },
  });
  if (result.status !== 0) {
    throw new Error(`${entry} --describe-config failed (${result.error?.message ?? `exit ${result.status}`}): ${result.stderr.trim()}`);
  }
  const parsed: unknown = JSON.parse(result.stdout);
  if (!Array.isArray(parsed) || !parsed.every(isConfigVariable)) {
    throw new Error(`${entry} --describe-config did not print a list of {name, required} objects`);
  }
  return parsed;
}

function isConfigVariable(value: unknown): value is ConfigVariable {
  const candidate = value as Partial<ConfigVariable> | null;
  return typeof candidate?.name === 'string' && typeof candidate.required === 'boolean';
}
