/**
 * @ahp/adapter-harness: the running AHP the framework adapters' integration tests need — one
 * gateway and one oracle worker as separate processes (tools/stack) over the test run's private
 * Redis (tools/embedded-redis), under a key prefix of their own, with fresh agent and operator
 * tokens and the hooks configuration the test gives. An operator decides approvals through the
 * gateway's real operator API, as the console does.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findWorkspaceRoot } from '@ahp/embedded-redis';
import { uniqueKeyPrefix } from '@ahp/embedded-redis/testing';
import {
  OperatorTokensFileSchema,
  ProtocolStateSchema,
  RequestDecisionResponseSchema,
  type AgentIdentity,
  type JsonObject,
  type ProtocolState,
  type RequestDecisionResponse,
} from '@ahp/protocol';
import { agentEndpoint, mintCredentials, mintToken, publishHooksFile, startStack, tokenDigest, writeTokensFile, type Stack } from '@ahp/stack';

/** The operator every harness has: may decide requests addressed to the operators. */
export const HARNESS_OPERATOR = { id: 'op-harness', name: 'Harness operator', role: 'approver' } as const;

export interface AdapterStackOptions {
  /** Names the run's folder and key prefix. */
  name: string;
  /** The private Redis of the test run (`inject('redisUrl')` under the embedded-redis global setup). */
  redisUrl: string;
  /** Agents to mint tokens for. @defaultValue one agent, `agent-1` */
  agents?: AgentIdentity[];
  /** `.ahp/hooks.yaml` text, published before the worker starts. @defaultValue the built-in rules */
  hooksConfig?: string;
}

export interface AdapterStack {
  readonly stack: Stack;
  /** The gateway's agent WebSocket endpoint. */
  readonly agentUrl: string;
  /** The gateway's operator API base, `…/v1/operator`. */
  readonly operatorApi: string;
  /** The plain token of an agent. */
  token(agentId?: string): string;
  /** `GET /v1/operator/requests/:id` as {@link HARNESS_OPERATOR}. */
  request(requestId: string): Promise<ProtocolState>;
  /** Requests of one status and type, newest first. */
  requests(query: { status?: string; type?: string; agent?: string }): Promise<ProtocolState[]>;
  /** `POST /v1/operator/requests/:id/decision` as {@link HARNESS_OPERATOR}; throws unless 200. */
  decide(requestId: string, body: { approve: boolean; feedback?: string; modified_input?: JsonObject; scope?: 'once' | 'session' | 'session_tool' }): Promise<RequestDecisionResponse>;
  stop(): Promise<void>;
}

/** Starts a gateway and a worker for one test file. */
export async function startAdapterStack(options: AdapterStackOptions): Promise<AdapterStack> {
  const dir = await mkdtemp(join(tmpdir(), `ahp-adapter-${options.name}-`));
  const credentials = mintCredentials(options.agents ?? [{ id: 'agent-1', name: 'Agent 1' }]);
  const tokensFile = join(dir, 'agent-tokens.json');
  await writeTokensFile(tokensFile, credentials);
  const operatorToken = mintToken();
  const operatorsFile = join(dir, 'operator-tokens.json');
  const operators = OperatorTokensFileSchema.parse({ operators: [{ ...HARNESS_OPERATOR, token_sha256: tokenDigest(operatorToken) }] });
  await writeFile(operatorsFile, JSON.stringify(operators), { mode: 0o600 });
  const keyPrefix = uniqueKeyPrefix(options.name).replace(/:$/, '');

  if (options.hooksConfig !== undefined) {
    const path = join(dir, 'hooks.yaml');
    await writeFile(path, options.hooksConfig);
    const outcome = await publishHooksFile({ redisUrl: options.redisUrl, keyPrefix, path, publishedBy: 'adapter-harness' });
    if (outcome.kind === 'invalid') throw new Error(`invalid hooks configuration:\n${outcome.issues.map((i) => `${i.line}:${i.column} ${i.path}: ${i.message}`).join('\n')}`);
  }

  const stack = await startStack({
    redisUrl: options.redisUrl,
    tokensFile,
    keyPrefix,
    gateways: 1,
    workers: 1,
    logDir: dir,
    gatewayEnv: { AHP_OPERATOR_TOKENS_FILE: operatorsFile, AHP_REQUEST_SWEEP_MS: '200' },
  });
  const gateway = stack.gateways[0];
  const firstAgent = credentials[0];
  if (gateway === undefined || firstAgent === undefined) throw new Error('the harness needs a gateway and an agent');
  const operatorApi = `http://127.0.0.1:${String(gateway.ready['port'])}/v1/operator`;

  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: unknown }> => {
    const response = await fetch(`${operatorApi}${path}`, {
      method,
      headers: { authorization: `Bearer ${operatorToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: await response.json() };
  };

  return {
    stack,
    agentUrl: agentEndpoint(gateway),
    operatorApi,
    token: (agentId = firstAgent.agent.id) => {
      const found = credentials.find((c) => c.agent.id === agentId);
      if (found === undefined) throw new Error(`no agent ${agentId}`);
      return found.token;
    },
    request: async (requestId) => {
      const { status, json } = await call('GET', `/requests/${encodeURIComponent(requestId)}`);
      if (status !== 200) throw new Error(`GET request ${requestId}: ${String(status)} ${JSON.stringify(json)}`);
      return ProtocolStateSchema.parse((json as { request: unknown }).request);
    },
    requests: async (query) => {
      const search = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined));
      const { status, json } = await call('GET', `/requests?${search.toString()}`);
      if (status !== 200) throw new Error(`GET requests: ${String(status)} ${JSON.stringify(json)}`);
      return ProtocolStateSchema.array().parse((json as { requests: unknown }).requests);
    },
    decide: async (requestId, body) => {
      const { status, json } = await call('POST', `/requests/${encodeURIComponent(requestId)}/decision`, body);
      if (status !== 200) throw new Error(`decision on ${requestId}: ${String(status)} ${JSON.stringify(json)}`);
      return RequestDecisionResponseSchema.parse(json);
    },
    stop: async () => {
      await stack.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until `probe` returns a value other than undefined, checking every `everyMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 20_000, everyMs = 50): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * The rules every adapter test runs against: `shell` with `rm -rf /…` is blocked, `deploy` to
 * production is rewritten to staging (control), `refund` waits for an operator, and a prompt that
 * mentions a password is refused.
 */
export const ADAPTER_TEST_HOOKS = `version: 1
hooks:
  user-prompt-submit:
    oracles:
      - name: prompt-rules
        use: rules
        rules:
          - id: no-secrets
            condition: 'prompt matches /password/'
            intensity: block
            message: "prompts must not carry passwords"
  pre-tool-use:
    oracles:
      - name: adapter-rules
        use: rules
        rules:
          - id: no-root-delete
            condition: 'tool.name == "shell" and tool.input.command matches /rm\\s+-rf\\s+\\//'
            intensity: block
            message: "deleting from the root is never allowed"
            resolution_path: ["delete inside the project folder instead"]
          - id: staging-first
            condition: 'tool.name == "deploy" and tool.input.env == "production"'
            intensity: control
            action: { type: set, target: env, value: staging }
            message: "deploys go to staging first"
          - id: refunds-need-a-person
            condition: 'tool.name == "refund"'
            require_approval:
              deadline: 5m
              message: "a refund of {{ tool.input.amount }} needs an operator's approval"
`;

/**
 * Type-checks the first `ts` block of a package's README — the snippet a newcomer pastes — as a
 * module of the package (so `@ahp/…` and the framework resolve as for a user), with `declarations`
 * standing in for the application's own functions. Resolves with tsc's diagnostics ('' when clean).
 */
export async function typecheckReadmeSnippet(packageDir: string, declarations: string): Promise<string> {
  const readme = await readFile(join(packageDir, 'README.md'), 'utf8');
  const snippet = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (snippet === undefined) throw new Error(`${packageDir}/README.md has no ts snippet`);
  const dir = await mkdtemp(join(packageDir, '.readme-check-'));
  try {
    await writeFile(join(dir, 'snippet.ts'), `${snippet}\n${declarations}\nexport {};\n`);
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', compilerOptions: { noEmit: true, noUnusedLocals: false }, include: ['snippet.ts'] }));
    const tsc = join(findWorkspaceRoot(), 'node_modules', 'typescript', 'bin', 'tsc');
    return await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { timeout: 120_000 }, (error, stdout) => {
        if (error !== null && stdout === '') reject(error);
        else resolve(stdout.trim());
      });
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
