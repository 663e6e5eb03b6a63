#!/usr/bin/env node
/**
 * `node tools/bench/dist/notify-latency.js [--count N]`: the notification delivery path on this
 * machine, apart from the main benchmark (it needs a receiver and operator tokens of its own).
 *
 * Starts a throwaway Redis, one gateway and one oracle worker (processes, production settings),
 * and a local webhook receiver; publishes a rule that asks for an approval and a webhook channel.
 * Then, one request at a time:
 * - opened → webhook delivered: the receiver's clock at arrival minus the request's `created_at`
 *   (one host, one clock; `created_at` has millisecond resolution);
 * - link redeemed → agent allowed: from the operator's `POST /links/redeem` of the webhook's
 *   Approve link to the agent's hook resolving.
 * Prints p50 / p90 / p99 / max of both. Latencies only, never a pass/fail.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { provideRedis } from '@ahp/embedded-redis';
import { validateHooksConfig } from '@ahp/oracles';
import { NotificationBodySchema, type NotificationBody } from '@ahp/protocol';
import { connect } from '@ahp/sdk';
import { mintCredentials, mintToken, startStack, tokenDigest, writeTokensFile } from '@ahp/stack';
import { connectRedis, createConfigStore, createKeys } from '@ahp/store';
import { summarize, type LatencySummary } from './stats/latency.js';

const RULES = (port: number) => `version: 1
notifications:
  channels:
    on-call: { type: webhook, url: "http://127.0.0.1:${port}/hook", secret_env: AHP_BENCH_WEBHOOK_SECRET }
  routes:
    - channels: [on-call]
hooks:
  pre-tool-use:
    oracles:
      - name: risky
        use: rules
        rules:
          - id: deploy
            condition: 'tool.name == "deploy"'
            require_approval: { deadline: 5m }
`;

function line(name: string, s: LatencySummary): string {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  return `${name.padEnd(34)} n=${String(s.count).padStart(4)}  p50 ${ms(s.p50)}  p90 ${ms(s.p90)}  p99 ${ms(s.p99)}  max ${ms(s.max)}`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { count: { type: 'string', default: '200' } } });
  const count = Math.max(1, Number.parseInt(values.count, 10) || 200);
  const dir = await mkdtemp(join(tmpdir(), 'ahp-notify-bench-'));
  const redis = await provideRedis({ mode: 'ephemeral' });
  const waiting = new Map<string, (body: NotificationBody, arrivedAt: number) => void>();
  const early = new Map<string, { body: NotificationBody; at: number }>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const arrivedAt = Date.now();
      res.writeHead(204).end();
      const body = NotificationBodySchema.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      // The webhook can arrive before the agent hears that its call waits: keep it for the waiter.
      const waiter = waiting.get(body.request.id);
      if (waiter === undefined) early.set(body.request.id, { body, at: arrivedAt });
      else waiter(body, arrivedAt);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  const port = (receiver.address() as AddressInfo).port;
  const credentials = mintCredentials([{ id: 'bench-agent', name: 'Bench agent' }]);
  const tokensFile = join(dir, 'agents.json');
  await writeTokensFile(tokensFile, credentials);
  const operatorToken = mintToken();
  const operatorsFile = join(dir, 'operators.json');
  await writeFile(operatorsFile, JSON.stringify({ operators: [{ id: 'bench-op', name: 'Bench operator', role: 'approver', token_sha256: tokenDigest(operatorToken) }] }), { mode: 0o600 });
  const keyPrefix = 'notify-bench';
  await mkdir(join(dir, 'logs'), { recursive: true });
  const stack = await startStack({
    redisUrl: redis.url,
    tokensFile,
    keyPrefix,
    gateways: 1,
    workers: 1,
    logDir: join(dir, 'logs'),
    gatewayEnv: { HOST: '127.0.0.1', AHP_OPERATOR_TOKENS_FILE: operatorsFile, AHP_OPERATOR_RATE_PER_S: '100000', AHP_OPERATOR_BURST: '100000' },
    workerEnv: { AHP_CONSOLE_URL: 'http://console.bench.test', AHP_BENCH_WEBHOOK_SECRET: 'bench-webhook-secret-0123456789abcdef' },
  });
  const [gatewayUrl] = stack.gatewayUrls();
  const [gateway] = stack.gateways;
  const [credential] = credentials;
  if (gatewayUrl === undefined || gateway === undefined || credential === undefined) throw new Error('the stack started no gateway');
  const client = await connect({ url: gatewayUrl, token: credential.token });
  const store = await connectRedis({ url: redis.url, name: 'notify-bench', logger: { debug() {}, info() {}, warn() {}, error() {} } });
  try {
    const source = RULES(port);
    const validated = validateHooksConfig(source, { plugins: [] });
    if (!validated.ok) throw new Error('invalid benchmark configuration');
    await createConfigStore({ redis: store, keys: createKeys({ prefix: keyPrefix }) }).publish({ source, config: validated.config, publishedBy: 'bench', now: Date.now() });
    const api = `http://127.0.0.1:${String(gateway.ready['port'])}/v1/operator`;
    const delivered: number[] = [];
    const decided: number[] = [];
    /** One request: waits for its webhook, redeems its Approve link, waits for the agent. Undefined when no webhook came (the worker does not serve the configuration yet). */
    const once = async (measure: boolean): Promise<boolean> => {
      let requestId: string | undefined;
      let notified: (value: { body: NotificationBody; at: number }) => void = () => undefined;
      const arrived = new Promise<{ body: NotificationBody; at: number }>((resolve) => (notified = resolve));
      const hook = client.hook('pre-tool-use', { tool: { name: 'deploy', input: { env: 'bench' } } }, {
        onAwaitingApproval: (info) => {
          requestId = info.requestId;
          const before = early.get(info.requestId);
          if (before === undefined) waiting.set(info.requestId, (body, at) => notified({ body, at }));
          else notified(before);
        },
      });
      hook.catch(() => undefined);
      const result = await Promise.race([arrived, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 5_000).unref())]);
      if (result === undefined) {
        if (requestId !== undefined) await fetch(`${api}/requests/${requestId}/decision`, { method: 'POST', headers: { authorization: `Bearer ${operatorToken}`, 'content-type': 'application/json' }, body: '{"approve":false}' });
        await hook.catch(() => undefined);
        return false;
      }
      waiting.delete(result.body.request.id);
      const token = result.body.links?.approve.split('#')[1];
      if (token === undefined) throw new Error('the webhook carried no decision link');
      const startedAt = performance.now();
      const response = await fetch(`${api}/links/redeem`, { method: 'POST', headers: { authorization: `Bearer ${operatorToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
      if (response.status !== 200) throw new Error(`redeem answered ${response.status}: ${await response.text()}`);
      const outcome = await hook;
      const endedAt = performance.now();
      if (!outcome.allowed) throw new Error('the approved call was not allowed');
      if (measure) {
        delivered.push(result.at - Date.parse(result.body.request.created_at));
        decided.push(endedAt - startedAt);
      }
      return true;
    };
    // Warm up until the worker serves the configuration and the paths are hot.
    let warm = 0;
    for (let tries = 0; warm < 10 && tries < 40; tries += 1) if (await once(false)) warm += 1;
    for (let i = 0; i < count; i += 1) await once(true);
    console.log(`notification delivery path, ${count} requests one at a time (1 gateway, 1 worker, local receiver)`);
    console.log(line('opened → webhook delivered', summarize(delivered)));
    console.log(line('link redeemed → agent allowed', summarize(decided)));
  } finally {
    await client.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    await stack.stop();
    await new Promise((resolve) => receiver.close(resolve));
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
