/**
 * `ws` and `nest` baselines: the benchmark event echoed by a server process — a bare `ws` server,
 * a NestJS gateway with its message dispatch, and a NestJS gateway with the gateway's own raw
 * listener — one message at a time (latency), then many in flight (messages per second).
 */
import { fileURLToPath } from 'node:url';
import { spawnService, type ServiceProcess } from '@ahp/stack';
import { count } from '../report/format.js';
import { echoMessage, type EchoEnvelope } from '../shared/echo-message.js';
import { NEST_ECHO_PATH, NEST_MODE_VARIABLE } from '../shared/nest-echo.js';
import { measured, throughput, type Phase, type PhaseContext } from '../orchestrator/context.js';
import type { EchoBaseline } from '../results.js';
import { latencyLine, warmUp, warmUpCount } from './common.js';

const childEntry = (file: string) => fileURLToPath(new URL(`../children/${file}`, import.meta.url));

async function measureEcho(ctx: PhaseContext, server: ServiceProcess, url: string, envelope: EchoEnvelope): Promise<EchoBaseline> {
  const { plan, loadgen } = ctx;
  await loadgen.open({ name: 'ws', url, connections: 1, envelope });
  await warmUp(ctx, 'ws', warmUpCount(plan.echoRoundTrips));
  const single = await loadgen.run('ws', { kind: 'closed', concurrency: 1, count: plan.echoRoundTrips });
  await loadgen.open({ name: 'ws', url, connections: plan.echoConnections, envelope });
  const { result: many, cpu } = await ctx.measureCpu([{ name: server.name, pid: server.pid }], () =>
    loadgen.run('ws', { kind: 'closed', concurrency: plan.echoInFlight, durationMs: plan.echoThroughputMs }),
  );
  await loadgen.close('ws');
  return {
    roundTrip: measured(single),
    messagesPerSecond: throughput(many),
    messageBytes: Buffer.byteLength(echoMessage(envelope)),
    cpu,
  };
}

/** An echo server process, started for `body` and stopped after it. */
interface EchoServer {
  name: string;
  file: string;
  path: string;
  env?: Record<string, string>;
}

async function withServer<T>(ctx: PhaseContext, spec: EchoServer, body: (server: ServiceProcess, url: string) => Promise<T>): Promise<T> {
  const server = await spawnService({ name: spec.name, entry: childEntry(spec.file), cwd: ctx.root, ...(spec.env ? { env: spec.env } : {}) });
  try {
    return await body(server, `ws://127.0.0.1:${String(server.ready['port'])}${spec.path}`);
  } finally {
    await server.stop();
  }
}

const nestServer = (mode: 'dispatch' | 'raw'): EchoServer => ({
  name: `nest-echo-${mode}`,
  file: 'nest-echo-server.js',
  path: NEST_ECHO_PATH,
  env: { [NEST_MODE_VARIABLE]: mode },
});

const summary = (figure: EchoBaseline) => `${latencyLine(figure.roundTrip)}, ${count(figure.messagesPerSecond)} msg/s`;

export const wsBaseline: Phase = {
  key: 'ws',
  name: 'ws baseline',
  resultPath: 'baselines.ws',
  describe: (plan) => `${count(plan.echoRoundTrips)} echoes one at a time, then ${plan.echoThroughputMs / 1000} s with ${plan.echoInFlight} in flight`,
  async run(ctx) {
    const figure = await withServer(ctx, { name: 'ws-echo', file: 'ws-echo-server.js', path: '/' }, (server, url) => measureEcho(ctx, server, url, 'raw'));
    ctx.results.baselines.ws = figure;
    return summary(figure);
  },
};

export const nestBaseline: Phase = {
  key: 'nest',
  name: 'nest baseline',
  resultPath: 'baselines.nest, baselines.nestRaw',
  describe: (plan) => `as ws, twice: @SubscribeMessage dispatch, then the gateway's raw listener (${count(plan.echoRoundTrips)} echoes each)`,
  async run(ctx) {
    const dispatch = await withServer(ctx, nestServer('dispatch'), (server, url) => measureEcho(ctx, server, url, 'nest'));
    ctx.results.baselines.nest = dispatch;
    const raw = await withServer(ctx, nestServer('raw'), (server, url) => measureEcho(ctx, server, url, 'raw'));
    ctx.results.baselines.nestRaw = raw;
    return `dispatch: ${summary(dispatch)}; raw listener: ${summary(raw)}`;
  },
};
