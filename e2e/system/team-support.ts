/**
 * What the team and operator system tests need beyond the harness: an operator tokens file for
 * the gateways (digests only, like the agent tokens), calls to a gateway's operator API, and a
 * small deferred for steering handlers from a test.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OperatorTokensFileSchema, type OperatorIdentity, type Plan } from '@ahp/protocol';
import { mintToken, tokenDigest, type ServiceProcess } from '@ahp/stack';

/** Operators with their plain tokens, and the file the gateways read (`AHP_OPERATOR_TOKENS_FILE`). */
export interface OperatorTokens {
  readonly file: string;
  token(operatorId: string): string;
  remove(): Promise<void>;
}

/** Mints a token per operator and writes the operator tokens file into a temp folder. */
export async function writeOperatorTokens(operators: readonly OperatorIdentity[]): Promise<OperatorTokens> {
  const dir = await mkdtemp(join(tmpdir(), 'ahp-e2e-operators-'));
  const file = join(dir, 'operator-tokens.json');
  const minted = operators.map((operator) => ({ operator, token: mintToken() }));
  const tokens = new Map(minted.map(({ operator, token }) => [operator.id, token]));
  const content = OperatorTokensFileSchema.parse({
    operators: minted.map(({ operator, token }) => ({ ...operator, token_sha256: tokenDigest(token) })),
  });
  await writeFile(file, JSON.stringify(content), { mode: 0o600 });
  return {
    file,
    token: (operatorId) => {
      const token = tokens.get(operatorId);
      if (token === undefined) throw new Error(`no operator ${operatorId}`);
      return token;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The operator API base URL of a gateway process. */
export function operatorApi(gateway: ServiceProcess): string {
  return `http://127.0.0.1:${String(gateway.ready['port'])}/v1/operator`;
}

/** One call to the operator API: status and parsed JSON body. */
export async function operatorCall(base: string, token: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

/** A promise with its resolve function outside, to release a handler when the test says so. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A two-step plan (docs/spec/plans.md#plans). */
export function samplePlan(title = 'Speed up the orders report'): Plan {
  return {
    title,
    steps: [
      { id: 's1', description: 'Add an index on orders.created_at', dependencies: [], status: 'pending', tools_expected: ['db.migrate'] },
      { id: 's2', description: 'Rewrite the report query', dependencies: ['s1'], status: 'pending', tools_expected: ['edit'] },
    ],
    verification_policy: 'run_pytest',
  };
}
