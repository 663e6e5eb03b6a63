// Starts: a private Redis, one gateway process and — once the hooks are queued — one oracle-worker
// process, both logging at debug level. Proves that no secret reaches BullMQ job data, anything
// else in Redis, or the gateway's and worker's logs: the agent's bearer token (in the upgrade
// header, in the query string, a wrong one), operator tokens (valid and invalid), and secret-named
// fields of hook contexts (`api_key`, `password`, `GITHUB_TOKEN`, `authorization`, …), which
// reach the oracles as "[redacted:<keyed hash>]" (docs/security.md).
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HookJobData } from '@ahp/protocol';
import { scanKeys } from '@ahp/store';
import { connect, type AhpClient } from '@ahp/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { eventually, startSystem, type System } from './harness.js';
import { operatorApi, writeOperatorTokens, type OperatorTokens } from './team-support.js';

/** Secret values the hook contexts carry; none may be stored or logged. */
const CONTEXT_SECRETS = {
  apiKey: `sk-ctx-${randomBytes(12).toString('hex')}`,
  password: `pw-ctx-${randomBytes(12).toString('hex')}`,
  githubToken: `ghp-ctx-${randomBytes(12).toString('hex')}`,
  authorization: `Bearer ctx-${randomBytes(12).toString('hex')}`,
  clientSecret: `cs-ctx-${randomBytes(12).toString('hex')}`,
};

function hookContext(index: number) {
  return {
    tool: { name: 'Bash', input: { command: `deploy --step ${index}`, env: { GITHUB_TOKEN: CONTEXT_SECRETS.githubToken, PATH: '/usr/bin' } } },
    extra: {
      api_key: CONTEXT_SECRETS.apiKey,
      credentials: { password: CONTEXT_SECRETS.password, client_secret: CONTEXT_SECRETS.clientSecret },
      request: { headers: { Authorization: CONTEXT_SECRETS.authorization, accept: 'application/json' } },
    },
  };
}

/** Every value under `prefix` in Redis, as text: hashes, lists, sets, sorted sets, streams and strings. */
async function dumpRedis(system: System): Promise<{ keys: string[]; text: string }> {
  const keys: string[] = [];
  keys.push(...(await scanKeys(system.redis, `${system.keyPrefix}:*`)));
  const parts: string[] = [];
  for (const key of keys) {
    const type = await system.redis.type(key);
    if (type === 'hash') parts.push(JSON.stringify(await system.redis.hGetAll(key)));
    else if (type === 'list') parts.push(JSON.stringify(await system.redis.lRange(key, 0, -1)));
    else if (type === 'set') parts.push(JSON.stringify(await system.redis.sMembers(key)));
    else if (type === 'zset') parts.push(JSON.stringify(await system.redis.zRange(key, 0, -1)));
    else if (type === 'stream') parts.push(JSON.stringify(await system.redis.xRange(key, '-', '+')));
    else if (type === 'string') parts.push(String(await system.redis.get(key)));
  }
  return { keys, text: parts.join('\n') };
}

describe('secrets stay out of job data, Redis and logs', () => {
  let system: System;
  let operators: OperatorTokens;
  let agent: AhpClient | undefined;

  beforeAll(async () => {
    operators = await writeOperatorTokens([{ id: 'op-root', name: 'Root', role: 'admin' }]);
    system = await startSystem({
      name: 'redaction',
      gateways: 1,
      workers: 0,
      agents: [{ id: 'agent-1', name: 'Agent one' }],
      gatewayEnv: { AHP_LOG_LEVEL: 'debug', AHP_OPERATOR_TOKENS_FILE: operators.file, AHP_HOOK_DEADLINE_MS: '60000' },
      workerEnv: { AHP_LOG_LEVEL: 'debug' },
    });
  });

  afterAll(async () => {
    await agent?.close();
    await system?.stop();
    await operators?.remove();
  });

  it('redacts hook contexts in BullMQ and never stores or logs a token', async () => {
    const url = system.stack.gatewayUrls()[0]!;
    const agentToken = system.token('agent-1');
    const wrongToken = `ahp_wrong-${randomBytes(16).toString('hex')}`;
    const wrongOperatorToken = `op_wrong-${randomBytes(16).toString('hex')}`;

    // The agent's token travels in the upgrade header (SDK) and in the query string (a raw client);
    // a wrong token is refused. All of these are logged about, none may be logged.
    agent = await connect({ url, token: agentToken, hookDeadlineMs: 60_000 });
    const viaQuery = new WebSocket(`${url}?token=${encodeURIComponent(agentToken)}`);
    await new Promise<void>((resolve, reject) => {
      viaQuery.once('open', () => resolve());
      viaQuery.once('error', reject);
    });
    viaQuery.close(1000);
    const refused = new WebSocket(url, { headers: { authorization: `Bearer ${wrongToken}` } });
    refused.on('error', () => undefined);
    await new Promise<void>((resolve) => refused.once('unexpected-response', (_request, response) => {
      response.resume();
      refused.terminate();
      resolve();
    }));

    // Operator calls, with the right token and a wrong one.
    const api = operatorApi(system.stack.gateways[0]!);
    expect((await fetch(`${api}/me`, { headers: { authorization: `Bearer ${operators.token('op-root')}` } })).status).toBe(200);
    expect((await fetch(`${api}/me`, { headers: { authorization: `Bearer ${wrongOperatorToken}` } })).status).toBe(401);

    // Hooks wait in the queue (no worker yet), so their job hashes can be read as a worker would.
    const hooks = [0, 1, 2].map((index) => agent!.hook('pre-tool-use', hookContext(index)));
    const jobKeys = await eventually(async () => {
      // Every shard's queue keys start with <prefix>:bull (tagged shards add `:{hooks-…}`).
      const found = (await scanKeys(system.redis, `${system.keyPrefix}:bull:*`)).filter((key) => key.includes(':hooks:'));
      const jobs = [];
      for (const key of found) if ((await system.redis.type(key)) === 'hash' && (await system.redis.hExists(key, 'data'))) jobs.push(key);
      return jobs.length >= 3 ? jobs : undefined;
    }, 'three queued hook jobs');
    for (const key of jobKeys) {
      const data = JSON.parse((await system.redis.hGet(key, 'data'))!) as HookJobData;
      const redacted = expect.stringMatching(/^\[redacted:[0-9a-f]{32}\]$/);
      expect(data.context).toEqual({
        tool: { name: 'Bash', input: { command: expect.stringMatching(/^deploy --step \d$/), env: { GITHUB_TOKEN: redacted, PATH: '/usr/bin' } } },
        extra: {
          api_key: redacted,
          credentials: { password: redacted, client_secret: redacted },
          request: { headers: { Authorization: redacted, accept: 'application/json' } },
        },
      });
    }
    const queued = await dumpRedis(system);

    // A worker evaluates them; every hook is decided.
    await system.stack.addWorker();
    const decisions = await Promise.all(hooks);
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true]);
    const decided = await dumpRedis(system);

    const logs = (
      await Promise.all(['gateway-1.log', 'worker-1.log'].map((file) => readFile(join(system.dir, file), 'utf8')))
    ).join('\n');
    // The logs are real and detailed (debug), or this test would prove nothing.
    expect(logs).toContain('websocket upgrade refused');
    expect(logs).toContain('operator call refused');
    expect(logs.split('\n').length).toBeGreaterThan(20);

    const secrets = [agentToken, wrongToken, operators.token('op-root'), wrongOperatorToken, ...Object.values(CONTEXT_SECRETS).map((value) => value.replace(/^Bearer /, ''))];
    for (const [where, text] of [
      ['Redis while the jobs were queued', queued.text],
      ['Redis after the decisions', decided.text],
      ['the gateway and worker logs', logs],
    ] as const) {
      for (const secret of secrets) expect(text.includes(secret), `${where} contain a secret (${secret.slice(0, 8)}…)`).toBe(false);
    }
    expect(queued.keys.length).toBeGreaterThan(0);
  });
});
