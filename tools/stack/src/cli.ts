#!/usr/bin/env node
/**
 * The main job: Redis (REDIS_URL, REDIS_CLUSTER_NODES, a local cluster with --redis-cluster, or
 * the embedded one with AOF under .data/redis), then the
 * hooks configuration (.ahp/hooks.yaml, published when it changed), then the gateways and oracle
 * workers; prints where to connect and where the logs are; Ctrl-C stops everything cleanly. A
 * second start reuses the data and the agent tokens.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { findWorkspaceRoot } from '@ahp/embedded-redis';
import { mintCredentials, writeTokensFile } from './agent-tokens.js';
import { DEMO_FLEET, ensureDemoCredentials, startDemoFleet, type DemoFleet } from './demo-fleet.js';
import { publishHooksFile } from './hooks-config-file.js';
import { ensureOperatorTokens } from './operator-tokens.js';
import { takeRedisClusterFlag } from './redis-cluster-flag.js';
import { provideStackRedis } from './stack-redis.js';
import { agentEndpoint, metricsEndpoint, startStack } from './start-stack.js';
import { DEFAULT_RESTART_POLICY, type SupervisorEvent } from './supervisor.js';

const HELP = `Usage: npm start [-- options]

Starts the AHP stack on this machine: Redis, gateways, oracle workers and the ops console.

Options:
  --gateways N   gateways to start (default 1)
  --workers N    oracle worker processes to start (default 2)
  --port N       port of the first gateway (default 8080, or AHP_GATEWAY_PORT)
  --data-dir D   where Redis data, tokens and logs live (default .data)
  --console-port N  port of the ops console (default 3000, or AHP_CONSOLE_PORT)
  --no-console   do not start the ops console
  --no-demo      do not run the demo fleet (scripted agents; also AHP_DEMO=0)
  --max-crashes N   crash loop: give up after N crashes of one process within the window (default 5)
  --crash-window S  the window for --max-crashes, in seconds (default 60)
  --no-restart   do not restart a crashed gateway, worker or console: stop everything instead
  --redis-cluster [N]  run on a local Redis Cluster of N masters (default 3) started for this run
                 and removed on exit, instead of the embedded Redis; prints its nodes and logs
  -h, --help     this text

Environment: REDIS_URL to use your own Redis instead of the embedded one, or REDIS_CLUSTER_NODES
(host:port,…) your own Redis Cluster (either one with --redis-cluster is refused as ambiguous); AHP_OPERATOR_TOKENS_FILE
to use your own operator tokens file (default: .data/operator-tokens.json, created on first start
with an admin token in .data/operator.token).

Crashes: a gateway, worker or the console that dies (killed, or a non-zero exit) is restarted
after 1 s, doubling with each crash within the window up to 30 s; a gateway comes back on its
port. A process that crashes --max-crashes times within --crash-window is given up on and the
whole stack stops (exit code 1). Ctrl-C or SIGTERM stops everything cleanly.

Hooks configuration: when .ahp/hooks.yaml exists it is validated and, when its text differs from
the current version in Redis, published as a new version before the workers start. A file with
issues is reported and not published; the workers run the version in force (or the built-in
defaults). Publish later changes with \`ahp config publish\`: running workers pick them up.`;

async function main(): Promise<void> {
  const cluster = takeRedisClusterFlag(process.argv.slice(2));
  const { values } = parseArgs({
    args: cluster.rest,
    options: {
      gateways: { type: 'string', default: '1' },
      workers: { type: 'string', default: '2' },
      port: { type: 'string', default: process.env['AHP_GATEWAY_PORT'] ?? '8080' },
      'data-dir': { type: 'string' },
      'console-port': { type: 'string', default: process.env['AHP_CONSOLE_PORT'] ?? '3000' },
      'no-console': { type: 'boolean', default: false },
      'no-demo': { type: 'boolean', default: false },
      'no-restart': { type: 'boolean', default: false },
      'max-crashes': { type: 'string', default: String(DEFAULT_RESTART_POLICY.maxCrashes) },
      'crash-window': { type: 'string', default: String(DEFAULT_RESTART_POLICY.windowMs / 1000) },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const maxCrashes = Number(values['max-crashes']);
  const crashWindowS = Number(values['crash-window']);
  if (!Number.isInteger(maxCrashes) || maxCrashes < 1) throw new Error(`--max-crashes must be a whole number ≥ 1, not ${values['max-crashes']}`);
  if (!Number.isFinite(crashWindowS) || crashWindowS <= 0) throw new Error(`--crash-window must be a number of seconds > 0, not ${values['crash-window']}`);
  const root = findWorkspaceRoot();
  const dataDir = values['data-dir'] ?? join(root, '.data');
  const show = (path: string) => relative(process.cwd(), path) || '.';
  await mkdir(join(dataDir, 'logs'), { recursive: true });

  const redis = await provideStackRedis({ clusterMasters: cluster.masters, dataDir, log: step });
  const redisTarget = { redisUrl: redis.url, redisClusterNodes: redis.clusterNodes };

  const tokensFile = join(dataDir, 'agent-tokens.json');
  const demoTokenFile = join(dataDir, 'demo-agent.token');
  if (!existsSync(tokensFile)) {
    step(`creating agent tokens (${show(tokensFile)}, digests only)`);
    const [demo] = mintCredentials([{ id: 'demo-agent', name: 'Demo agent', team: 'demo', role: 'lead' }]);
    if (!demo) throw new Error('no credential minted');
    await writeTokensFile(tokensFile, [demo]);
    // The plain token is kept for the local user only, beside the data it protects.
    await writeFile(demoTokenFile, `${demo.token}\n`, { mode: 0o600 });
  }
  const demoToken = existsSync(demoTokenFile) ? (await readFile(demoTokenFile, 'utf8')).trim() : undefined;
  const withDemo = !values['no-demo'] && process.env['AHP_DEMO'] !== '0';
  const demoCredentialsFile = join(dataDir, 'demo-fleet.json');
  if (withDemo) step(`demo fleet: ${DEMO_FLEET.length} scripted agents (tokens in ${show(demoCredentialsFile)}; --no-demo turns it off)`);
  const demoCredentials = withDemo ? await ensureDemoCredentials(tokensFile, demoCredentialsFile) : [];

  const hooksFile = join(root, '.ahp', 'hooks.yaml');
  const hooks = await publishHooksFile({ ...redisTarget, path: hooksFile });
  switch (hooks.kind) {
    case 'absent':
      step(`hooks configuration: none (${show(hooksFile)} not found); workers run the current version or the built-in defaults`);
      break;
    case 'published':
    case 'unchanged':
      step(`hooks configuration: version ${hooks.version} (${show(hooksFile)})${hooks.kind === 'published' ? ', newly published' : ''}`);
      break;
    case 'invalid':
      for (const issue of hooks.issues) {
        console.error(`${show(hooksFile)}${issue.line > 0 ? `:${issue.line}:${issue.column}` : ''} ${issue.path || '(root)'}: ${issue.message}`);
      }
      step(
        `hooks configuration: ${show(hooksFile)} has ${hooks.issues.length} issue(s) and was not published; ` +
          (hooks.current === null ? 'workers run the built-in defaults' : `workers keep version ${hooks.current}`),
      );
      break;
  }

  // Operators (the console, `ahp requests …`): the user's own tokens file, or one made here on first start.
  const ownOperatorTokens = process.env['AHP_OPERATOR_TOKENS_FILE'];
  const operatorTokensFile = ownOperatorTokens ?? join(dataDir, 'operator-tokens.json');
  const operatorTokenFile = join(dataDir, 'operator.token');
  const operators = ownOperatorTokens ? { created: false, adminToken: undefined } : await ensureOperatorTokens(operatorTokensFile, operatorTokenFile);
  if (operators.created) step(`creating operator tokens (${show(operatorTokensFile)}, digests only); the admin token is in ${show(operatorTokenFile)}`);

  const withConsole = !values['no-console'];
  const consolePort = Number(values['console-port']);
  const gateways = Number(values.gateways);
  const workers = Number(values.workers);
  step(`starting ${gateways} gateway(s) and ${workers} oracle worker(s)${withConsole ? ` and the ops console (port ${consolePort})` : ''}; logs in ${show(join(dataDir, 'logs'))}`);
  const logsDir = join(dataDir, 'logs');
  // Set once the stack is up; a crash loop during start-up is reported by startStack's own error.
  const control: { shutdown?: (reason: string, exitCode: number) => Promise<void> } = {};
  const onSupervisorEvent = (event: SupervisorEvent) => {
    const log = show(join(logsDir, `${event.name}.log`));
    switch (event.kind) {
      case 'crashed':
        console.error(
          `[ahp] ${event.name} ${event.cause} (crash ${event.crashesInWindow} within ${crashWindowS} s; at ${maxCrashes} the stack stops); restarting in ${event.restartInMs} ms. Its log: ${log}\n${indent(event.lastLines)}`,
        );
        break;
      case 'restarted':
        step(`${event.name} restarted (pid ${event.service.pid})`);
        break;
      case 'exited-cleanly':
        step(`${event.name} exited cleanly (someone stopped it); not restarted. Its log: ${log}`);
        break;
      case 'gave-up':
        console.error(
          `[ahp] ${event.name} crashed ${event.crashes} times within ${event.windowMs / 1000} s (last: ${event.cause}): a crash loop, giving up. Its log: ${log}\n${indent(event.lastLines)}`,
        );
        void control.shutdown?.(`${event.name} crash loop`, 1);
        break;
    }
  };
  const stack = await startStack({
    ...redisTarget,
    tokensFile,
    gateways,
    workers,
    gatewayPort: Number(values.port),
    logDir: logsDir,
    ...(values['no-restart'] ? {} : { restart: { policy: { maxCrashes, windowMs: crashWindowS * 1000 }, onEvent: onSupervisorEvent } }),
    gatewayEnv: {
      AHP_OPERATOR_TOKENS_FILE: operatorTokensFile,
      // The console reads the live feed server-side (no Origin); these are the origins its pages have.
      AHP_CONSOLE_ORIGINS: `http://localhost:${consolePort},http://127.0.0.1:${consolePort}`,
    },
    ...(withConsole ? { console: { port: consolePort } } : {}),
  });

  const [first] = stack.gateways;
  if (!first) throw new Error('no gateway started');
  const endpoint = agentEndpoint(first, 'localhost');
  let demo: DemoFleet | undefined;
  if (withDemo) {
    step('starting the demo fleet (its lines are prefixed [demo])');
    demo = await startDemoFleet({ url: endpoint, credentials: demoCredentials, runId: 'local', log: (line) => console.log(`[demo] ${line}`) });
  }
  console.log(`
AHP is running.
  agent endpoint   ${stack.gateways.map((gateway) => agentEndpoint(gateway, 'localhost')).join('  ')}
  health           http://localhost:${String(first.ready['port'])}/readyz
  metrics          ${[...stack.gateways, ...stack.workers].map((service) => metricsEndpoint(service, 'localhost') ?? `${service.name}: none`).join('  ')}
  redis            ${redis.summary}
  demo agent token ${demoToken ?? '(see your tokens file)'}${demoToken ? `  (also in ${show(demoTokenFile)})` : ''}
  logs             ${show(join(dataDir, 'logs'))}/
${consoleHelp(stack.console ? `http://localhost:${String(stack.console.ready['port'])}` : undefined, operators.adminToken, show(operatorTokenFile), show(operatorTokensFile))}
Connect an agent with the SDK (libs/sdk):
  const client = await connect({ url: '${endpoint}', token: process.env.AHP_TOKEN });
  const decision = await client.hook('pre-tool-use', { tool: { name: 'bash', input: { command: 'ls' } } });

Press Ctrl-C to stop.`);

  let stopping = false;
  const stop = async (reason: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    step(`${reason}: stopping the console, gateways (agents are told to reconnect), workers, then Redis…`);
    await demo?.stop();
    await stack.stop();
    await redis.stop();
    step(redis.keepsData ? 'stopped. Data kept for the next start.' : 'stopped. The local Redis Cluster and its data are removed.');
    process.exit(exitCode);
  };
  control.shutdown = stop;
  process.on('SIGINT', () => void stop('SIGINT', 0));
  process.on('SIGTERM', () => void stop('SIGTERM', 0));
  if (values['no-restart']) {
    // Without restarts, one process gone leaves a stack that cannot do its job: stop it all, saying why.
    for (const service of [...stack.gateways, ...stack.workers, ...(stack.console ? [stack.console] : [])]) {
      void service.exited.then((exit) => {
        if (stopping) return;
        console.error(`[ahp] ${service.name} exited (${exit.signal ?? `code ${exit.code}`}); last output:\n${service.recentLines().slice(-20).join('\n')}`);
        void stop(`${service.name} exited (--no-restart)`, 1);
      });
    }
  }
}

/** Output lines indented under a message. */
function indent(lines: readonly string[]): string {
  return lines.map((line) => `    ${line}`).join('\n');
}

/** The lines about the ops console: where it is and how to sign in. */
function consoleHelp(url: string | undefined, adminToken: string | undefined, tokenFile: string, tokensFile: string): string {
  if (url === undefined) return '  ops console      not started (--no-console)\n';
  const signIn = adminToken
    ? `sign in with the admin token in ${tokenFile}:\n                   ${adminToken}`
    : `sign in with an operator token from your tokens file (${tokensFile})`;
  return `
Ops console        ${url}
  ${signIn}
  more operators:  npm run ahp -- tokens operator <id> --name <name> --role viewer|approver|admin --file ${tokensFile}
                   (then restart, or send SIGHUP to the gateways)
`;
}

function step(message: string): void {
  console.log(`[ahp] ${message}`);
}

main().catch((error: unknown) => {
  console.error(`[ahp] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
