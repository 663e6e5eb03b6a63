/**
 * Checks docker-compose.yml for the production shape without a Docker engine: Redis with AOF
 * persistence and `noeviction`, each app service built from a Dockerfile stage that exists,
 * environment variables the app really reads (a typo is an error, a missing required one too),
 * Redis reached by its service name, start order on a healthy Redis, several worker replicas,
 * and every referenced secret and volume declared. With `clusterProfile`, the services of that
 * profile are checked as one deployment on a Redis Cluster: cluster-enabled persistent masters, an
 * init service that creates the cluster from every one of them, apps pointed at them with
 * REDIS_CLUSTER_NODES and started once the cluster exists, and no dependency outside the profile.
 */
import { LineCounter, parseDocument, type Document, type Node } from 'yaml';

/** One variable of an app's configuration, as the app describes it (`main.js --describe-config`). */
export interface ConfigVariable {
  name: string;
  required: boolean;
  default?: string | number | boolean | null;
  description?: string;
}

/** A service of the compose file that runs one of our apps. */
export interface AppService {
  /** The service name in docker-compose.yml. */
  service: string;
  /** The variables the app reads. */
  config: readonly ConfigVariable[];
  /** At least this many replicas (workers scale horizontally). @defaultValue 1 */
  minReplicas?: number;
}

export interface ComposeCheckInput {
  composeText: string;
  dockerfileText: string;
  apps: readonly AppService[];
  /** The Redis service name. @defaultValue "redis" */
  redisService?: string;
  /** Whether a path (relative to the compose file) exists, for build contexts and file secrets. */
  pathExists: (path: string) => boolean;
  /** A profile that must run the stack on a Redis Cluster (see {@link checkClusterProfile}). */
  clusterProfile?: { name: string; /** @defaultValue 3 */ minMasters?: number };
}

export interface ComposeProblem {
  /** 1-based line in docker-compose.yml, when the problem has a place. */
  line?: number;
  /** e.g. `services.gateway.environment.REDIS_URL`. */
  path: string;
  message: string;
}

/** The stage names of a Dockerfile (`FROM image AS name`), lower-cased as Docker treats them. */
export function dockerfileStages(dockerfileText: string): Set<string> {
  const stages = new Set<string>();
  for (const match of dockerfileText.matchAll(/^\s*FROM\s+\S+(?:\s+AS\s+([A-Za-z0-9._-]+))?\s*$/gim)) {
    if (match[1]) stages.add(match[1].toLowerCase());
  }
  return stages;
}

/** Every problem found; an empty list means the file is consistent. */
export function checkCompose(input: ComposeCheckInput): ComposeProblem[] {
  const lines = new LineCounter();
  // Plain messages; the line comes from the error's offset, once, in our own format.
  // merge: Compose reads YAML merge keys (`<<: *anchor`), so the check must see what they merge.
  const doc = parseDocument(input.composeText, { lineCounter: lines, prettyErrors: false, merge: true });
  const problems: ComposeProblem[] = [];
  const lineOf = (node: unknown): number | undefined => {
    const range = (node as Node | undefined)?.range;
    return range ? lines.linePos(range[0]).line : undefined;
  };
  const report = (path: string, message: string, node?: unknown) => {
    const line = lineOf(node);
    problems.push(line === undefined ? { path, message } : { line, path, message });
  };
  for (const error of doc.errors) {
    problems.push({ line: lines.linePos(error.pos[0]).line, path: '(yaml)', message: error.message.split('\n')[0] ?? error.code });
  }
  if (problems.length > 0) return problems;

  const json = doc.toJS() as Record<string, unknown> | null;
  const services = asRecord(json?.['services']);
  if (!services) {
    report('services', 'the file declares no services');
    return problems;
  }
  const redisName = input.redisService ?? 'redis';
  const node = (...path: (string | number)[]) => doc.getIn(path, true) as unknown;

  checkRedis(asRecord(services[redisName]), `services.${redisName}`, report, (...p) => node('services', redisName, ...p));
  const stages = dockerfileStages(input.dockerfileText);
  for (const app of input.apps) {
    const service = asRecord(services[app.service]);
    const at = (...p: (string | number)[]) => node('services', app.service, ...p);
    if (!service) {
      report(`services.${app.service}`, 'missing: every app of the stack runs as a service');
      continue;
    }
    checkAppService(app, service, { stages, redisName, services, pathExists: input.pathExists }, report, at);
  }
  checkReferences(doc, json ?? {}, services, input.pathExists, report);
  if (input.clusterProfile) checkClusterProfile(input.clusterProfile, services, input.apps, report, node);
  return problems;
}

type Report = (path: string, message: string, node?: unknown) => void;
type At = (...path: (string | number)[]) => unknown;

/** The profiles a service belongs to. */
function profilesOf(service: unknown): string[] {
  return asArray(asRecord(service)?.['profiles']).map(String);
}

/** The value of `--name` in a command, if given. */
function optionOf(command: readonly string[], name: string): string | undefined {
  const index = command.indexOf(`--${name}`);
  return index >= 0 ? command[index + 1] : undefined;
}

/**
 * Every service of the cluster profile: at least `minMasters` Redis nodes with `--cluster-enabled
 * yes` (each persistent like the single Redis), exactly one init service whose command creates the
 * cluster (`--cluster create`) naming every node and waiting for each to be healthy, every app
 * service of the profile set with REDIS_CLUSTER_NODES naming only those nodes (no REDIS_URL of
 * another Redis) and started after the init completed, and no `depends_on` leaving the profile.
 */
export function checkClusterProfile(
  profile: { name: string; minMasters?: number },
  services: Record<string, unknown>,
  apps: readonly AppService[],
  report: Report,
  node: (...path: (string | number)[]) => unknown,
): void {
  const members = Object.entries(services).filter(([, service]) => profilesOf(service).includes(profile.name));
  if (members.length === 0) {
    report('services', `no service belongs to the "${profile.name}" profile (the stack on a Redis Cluster)`);
    return;
  }
  const names = new Set(members.map(([name]) => name));
  const nodes = new Map<string, number>();
  const inits: string[] = [];
  for (const [name, value] of members) {
    const service = asRecord(value) ?? {};
    const command = commandWords(service['command']);
    const at = (...p: (string | number)[]) => node('services', name, ...p);
    if (optionOf(command, 'cluster-enabled') === 'yes') {
      checkRedis(service, `services.${name}`, report, at);
      nodes.set(name, Number(optionOf(command, 'port') ?? 6379));
    } else if (command.join(' ').includes('--cluster create')) {
      inits.push(name);
    }
    for (const dependency of Object.keys(dependencyConditions(service['depends_on']))) {
      if (dependency in services && !names.has(dependency)) {
        report(`services.${name}.depends_on`, `depends on "${dependency}", which is not in the "${profile.name}" profile`, at('depends_on'));
      }
    }
  }
  const minMasters = profile.minMasters ?? 3;
  if (nodes.size < minMasters) {
    report('services', `the "${profile.name}" profile has ${nodes.size} Redis node(s) with --cluster-enabled yes; a cluster that survives losing a master needs at least ${minMasters}`);
  }
  if (inits.length !== 1) {
    report('services', `the "${profile.name}" profile needs exactly one service that creates the cluster (redis-cli --cluster create …), found ${inits.length}${inits.length > 0 ? `: ${inits.join(', ')}` : ''}`);
  }
  const [init] = inits;
  if (init !== undefined) {
    const service = asRecord(services[init]) ?? {};
    // The node names the command mentions (as `redis-cluster-1` or `redis-cluster-1:6379`, or in a shell loop).
    const words = new Set(commandWords(service['command']).join(' ').split(/[^A-Za-z0-9._-]+/));
    const conditions = dependencyConditions(service['depends_on']);
    for (const name of nodes.keys()) {
      if (!words.has(name)) {
        report(`services.${init}.command`, `the cluster is created without node "${name}"`, node('services', init, 'command'));
      }
      if (conditions[name] !== 'service_healthy') {
        report(`services.${init}.depends_on`, `create the cluster once "${name}" is healthy: depends_on.${name}.condition: service_healthy`, node('services', init, 'depends_on') ?? node('services', init));
      }
    }
  }
  const appServices = new Set(apps.map((app) => app.service));
  for (const [name, value] of members) {
    if (!appServices.has(name)) continue;
    const service = asRecord(value) ?? {};
    const environment = environmentOf(service['environment']);
    const at = (...p: (string | number)[]) => node('services', name, ...p);
    const list = environment['REDIS_CLUSTER_NODES'];
    if (list === undefined) {
      report(`services.${name}.environment`, `set REDIS_CLUSTER_NODES to the cluster's nodes (${[...nodes.keys()].map((node) => `${node}:${nodes.get(node)}`).join(',')})`, at('environment') ?? at());
      continue;
    }
    for (const entry of list.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
      const [host, port] = entry.split(':');
      if (host === undefined || !nodes.has(host)) {
        report(`services.${name}.environment.REDIS_CLUSTER_NODES`, `"${entry}" is not a cluster node of the "${profile.name}" profile (${[...nodes.keys()].join(', ')})`, at('environment', 'REDIS_CLUSTER_NODES'));
      } else if (Number(port) !== nodes.get(host)) {
        report(`services.${name}.environment.REDIS_CLUSTER_NODES`, `"${entry}": ${host} listens on ${nodes.get(host)}`, at('environment', 'REDIS_CLUSTER_NODES'));
      }
    }
    const url = environment['REDIS_URL'];
    const urlHost = url === undefined ? undefined : hostOf(url);
    if (url !== undefined && (urlHost === undefined || !nodes.has(urlHost))) {
      report(`services.${name}.environment.REDIS_URL`, `REDIS_URL names "${urlHost ?? url}", not a node of the cluster: with REDIS_CLUSTER_NODES it only gives scheme and credentials; leave it out`, at('environment', 'REDIS_URL'));
    }
    if (init !== undefined && dependencyConditions(service['depends_on'])[init] !== 'service_completed_successfully') {
      report(`services.${name}.depends_on`, `start once the cluster exists: depends_on.${init}.condition: service_completed_successfully`, at('depends_on') ?? at());
    }
  }
}

function checkRedis(redis: Record<string, unknown> | undefined, path: string, report: Report, at: At): void {
  if (!redis) {
    report(path, 'missing: the stack needs a Redis service');
    return;
  }
  if (typeof redis['image'] !== 'string' || !/redis/i.test(redis['image'])) {
    report(`${path}.image`, 'expected a Redis image', at('image'));
  }
  const command = commandWords(redis['command']);
  const option = (name: string) => {
    const index = command.indexOf(`--${name}`);
    return index >= 0 ? command[index + 1] : undefined;
  };
  if (option('appendonly') !== 'yes') {
    report(`${path}.command`, 'Redis must persist with AOF: add "--appendonly yes"', at('command'));
  }
  if (option('maxmemory-policy') !== 'noeviction') {
    report(`${path}.command`, 'Redis must never evict queue or request keys: add "--maxmemory-policy noeviction"', at('command'));
  }
  const volumes = asArray(redis['volumes']).map(volumeTarget);
  if (!volumes.includes('/data')) {
    report(`${path}.volumes`, 'mount a volume at /data so the AOF survives the container', at('volumes') ?? at());
  }
  if (!asRecord(redis['healthcheck'])) {
    report(`${path}.healthcheck`, 'add a healthcheck (e.g. redis-cli ping) so dependents wait for it', at());
  }
}

interface AppContext {
  stages: Set<string>;
  redisName: string;
  services: Record<string, unknown>;
  pathExists: (path: string) => boolean;
}

function checkAppService(app: AppService, service: Record<string, unknown>, ctx: AppContext, report: Report, at: At): void {
  const path = `services.${app.service}`;
  const build = asRecord(service['build']);
  if (!build) {
    report(`${path}.build`, 'build the service from this repository (build.context and build.target)', at());
  } else {
    const context = typeof build['context'] === 'string' ? build['context'] : '.';
    if (!ctx.pathExists(context)) report(`${path}.build.context`, `build context "${context}" does not exist`, at('build', 'context'));
    const target = build['target'];
    if (typeof target !== 'string') {
      report(`${path}.build.target`, 'name the Dockerfile stage to build', at('build'));
    } else if (!ctx.stages.has(target.toLowerCase())) {
      report(`${path}.build.target`, `the Dockerfile has no stage "${target}" (stages: ${[...ctx.stages].join(', ') || 'none'})`, at('build', 'target'));
    }
  }

  const environment = environmentOf(service['environment']);
  const known = new Map(app.config.map((variable) => [variable.name, variable]));
  for (const name of Object.keys(environment)) {
    if (!known.has(name)) {
      report(`${path}.environment.${name}`, `${app.service} does not read ${name}${suggest(name, [...known.keys()])}`, at('environment', name));
    }
  }
  for (const variable of app.config) {
    // The apps take their Redis from REDIS_URL or, on a cluster, REDIS_CLUSTER_NODES instead.
    const alternative = variable.name === 'REDIS_URL' ? environment['REDIS_CLUSTER_NODES'] : undefined;
    if (variable.required && environment[variable.name] === undefined && alternative === undefined) {
      report(`${path}.environment`, `${variable.name} is required by ${app.service} and not set`, at('environment') ?? at());
    }
  }
  const redisUrl = environment['REDIS_URL'];
  // With REDIS_CLUSTER_NODES the app is on a cluster, checked with its profile (checkClusterProfile).
  if (redisUrl !== undefined && environment['REDIS_CLUSTER_NODES'] === undefined) {
    const host = hostOf(redisUrl);
    if (host !== ctx.redisName) {
      report(`${path}.environment.REDIS_URL`, `REDIS_URL should reach the "${ctx.redisName}" service by name (found host "${host ?? '?'}")`, at('environment', 'REDIS_URL'));
    }
    const dependsOn = dependencyConditions(service['depends_on']);
    if (dependsOn[ctx.redisName] !== 'service_healthy') {
      report(`${path}.depends_on`, `start after Redis is healthy: depends_on.${ctx.redisName}.condition: service_healthy`, at('depends_on') ?? at());
    }
  }

  const minReplicas = app.minReplicas ?? 1;
  const replicas = Number(asRecord(service['deploy'])?.['replicas'] ?? 1);
  if (replicas < minReplicas) {
    report(`${path}.deploy.replicas`, `run at least ${minReplicas} replicas (found ${replicas})`, at('deploy', 'replicas') ?? at());
  }
}

function checkReferences(
  doc: Document,
  json: Record<string, unknown>,
  services: Record<string, unknown>,
  pathExists: (path: string) => boolean,
  report: Report,
): void {
  const secrets = asRecord(json['secrets']) ?? {};
  const volumes = asRecord(json['volumes']) ?? {};
  for (const [name, value] of Object.entries(services)) {
    const service = asRecord(value) ?? {};
    asArray(service['secrets']).forEach((entry, index) => {
      const secret = typeof entry === 'string' ? entry : String(asRecord(entry)?.['source'] ?? '');
      if (!(secret in secrets)) {
        report(`services.${name}.secrets.${index}`, `secret "${secret}" is not declared under top-level secrets`, doc.getIn(['services', name, 'secrets', index], true));
      }
    });
    asArray(service['volumes']).forEach((entry, index) => {
      const source = typeof entry === 'string' ? entry.split(':')[0] : String(asRecord(entry)?.['source'] ?? '');
      if (source && !source.startsWith('.') && !source.startsWith('/') && !(source in volumes)) {
        report(`services.${name}.volumes.${index}`, `named volume "${source}" is not declared under top-level volumes`, doc.getIn(['services', name, 'volumes', index], true));
      }
    });
    for (const dependency of Object.keys(dependencyConditions(service['depends_on']))) {
      if (!(dependency in services)) {
        report(`services.${name}.depends_on`, `depends on "${dependency}", which is not a service`, doc.getIn(['services', name, 'depends_on'], true));
      }
    }
  }
  for (const [name, value] of Object.entries(secrets)) {
    const file = asRecord(value)?.['file'];
    if (typeof file === 'string' && file.startsWith('./') && !file.startsWith('./.data/') && !pathExists(file)) {
      report(`secrets.${name}.file`, `secret file "${file}" does not exist`, doc.getIn(['secrets', name, 'file'], true));
    }
  }
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function commandWords(command: unknown): string[] {
  if (Array.isArray(command)) return command.map(String);
  return typeof command === 'string' ? command.split(/\s+/).filter(Boolean) : [];
}

function volumeTarget(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry.split(':')[1];
  const target = asRecord(entry)?.['target'];
  return typeof target === 'string' ? target : undefined;
}

/** `environment` as a map, from either compose form (a map, or a list of `NAME=value`). */
function environmentOf(environment: unknown): Record<string, string> {
  if (Array.isArray(environment)) {
    return Object.fromEntries(
      environment.map(String).map((entry) => {
        const index = entry.indexOf('=');
        return index < 0 ? [entry, ''] : [entry.slice(0, index), entry.slice(index + 1)];
      }),
    );
  }
  const map = asRecord(environment) ?? {};
  return Object.fromEntries(Object.entries(map).map(([name, value]) => [name, value === null ? '' : String(value)]));
}

/** `depends_on` as service → condition, from either compose form. */
function dependencyConditions(dependsOn: unknown): Record<string, string> {
  if (Array.isArray(dependsOn)) return Object.fromEntries(dependsOn.map((name) => [String(name), 'service_started']));
  return Object.fromEntries(
    Object.entries(asRecord(dependsOn) ?? {}).map(([name, value]) => [name, String(asRecord(value)?.['condition'] ?? 'service_started')]),
  );
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

function suggest(name: string, known: readonly string[]): string {
  const close = known.find((candidate) => editDistance(candidate, name) <= 2);
  return close ? ` (did you mean ${close}?)` : '';
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
