import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayConfigError } from '../config/gateway-config.js';
import { JsonLogger } from '../logging/json-logger.js';
import { AgentAuthService, extractBearerToken, tokenDigest } from './agent-auth.service.js';

const logLines: string[] = [];
const logger = new JsonLogger({ level: 'debug', write: (line) => logLines.push(line) });

function newToken(): string {
  return randomBytes(24).toString('base64url');
}

function entry(id: string, token: string, extra: Record<string, unknown> = {}) {
  return { id, name: `Agent ${id}`, token_sha256: tokenDigest(token), ...extra };
}

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ahp-auth-'));
  file = join(dir, 'agents.json');
  logLines.length = 0;
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeAgents(agents: unknown[]): Promise<void> {
  await writeFile(file, JSON.stringify({ agents }));
}

async function started(): Promise<AgentAuthService> {
  const service = new AgentAuthService({ agentTokensFile: file }, logger);
  await service.onModuleInit();
  return service;
}

describe('tokenDigest', () => {
  it('is the lowercase hex SHA-256 of the token', () => {
    expect(tokenDigest('secret')).toBe(createHash('sha256').update('secret').digest('hex'));
  });
});

describe('extractBearerToken', () => {
  it('reads the Authorization header, case-insensitively', () => {
    expect(extractBearerToken({ headers: { authorization: 'Bearer abc' }, url: '/v1/agents' })).toBe('abc');
    expect(extractBearerToken({ headers: { authorization: 'bearer   abc ' }, url: '/v1/agents' })).toBe('abc');
  });

  it('falls back to the token query parameter', () => {
    expect(extractBearerToken({ headers: {}, url: '/v1/agents?token=q%2Bz' })).toBe('q+z');
    expect(extractBearerToken({ headers: {}, url: '/v1/agents?token=' })).toBeUndefined();
    expect(extractBearerToken({ headers: {}, url: '/v1/agents' })).toBeUndefined();
  });

  it('prefers the header, and judges a malformed header rather than ignoring it', () => {
    expect(extractBearerToken({ headers: { authorization: 'Bearer h' }, url: '/?token=q' })).toBe('h');
    expect(extractBearerToken({ headers: { authorization: 'Basic dXNlcjpwYXNz' }, url: '/?token=q' })).toBe('Basic dXNlcjpwYXNz');
  });
});

describe('AgentAuthService', () => {
  it('authenticates a known token as its agent, by digest', async () => {
    const token = newToken();
    await writeAgents([entry('alpha', token, { team: 'red', role: 'lead' })]);
    const auth = await started();
    const result = auth.authenticateToken(token);
    expect(result).toEqual({
      ok: true,
      agent: { identity: { id: 'alpha', name: 'Agent alpha', team: 'red', role: 'lead' }, tokenDigest: tokenDigest(token) },
    });
    expect(auth.authenticateRequest({ headers: { authorization: `Bearer ${token}` }, url: '/v1/agents' }).ok).toBe(true);
    expect(auth.authenticateRequest({ headers: {}, url: `/v1/agents?token=${token}` }).ok).toBe(true);
  });

  it('refuses missing, malformed, unknown and revoked tokens', async () => {
    const revoked = newToken();
    await writeAgents([entry('alpha', newToken()), entry('beta', revoked, { revoked: true })]);
    const auth = await started();
    expect(auth.authenticateToken(undefined)).toEqual({ ok: false, reason: 'missing_token' });
    expect(auth.authenticateToken('has space')).toEqual({ ok: false, reason: 'malformed_token' });
    expect(auth.authenticateToken('x'.repeat(5000))).toEqual({ ok: false, reason: 'malformed_token' });
    expect(auth.authenticateToken(newToken())).toEqual({ ok: false, reason: 'unknown_token' });
    expect(auth.authenticateToken(revoked)).toEqual({ ok: false, reason: 'revoked_token' });
  });

  it('looks up known agents by id, without their revoked entries', async () => {
    await writeAgents([entry('alpha', newToken(), { team: 'red', role: 'lead' }), entry('beta', newToken(), { team: 'red', revoked: true })]);
    const auth = await started();
    expect(auth.identityOf('alpha')).toEqual({ id: 'alpha', name: 'Agent alpha', team: 'red', role: 'lead' });
    expect(auth.identityOf('beta')).toBeUndefined();
    expect(auth.identityOf('nobody')).toBeUndefined();
  });

  it('never accepts the stored digest itself as a token', async () => {
    const token = newToken();
    await writeAgents([entry('alpha', token)]);
    const auth = await started();
    expect(auth.authenticateToken(tokenDigest(token)).ok).toBe(false);
  });

  it('refuses to start on a missing or invalid file, naming AHP_AGENT_TOKENS_FILE', async () => {
    await expect(started()).rejects.toThrow(/AHP_AGENT_TOKENS_FILE: cannot read/);
    await writeFile(file, '{"agents": [');
    await expect(started()).rejects.toBeInstanceOf(GatewayConfigError);
    await writeAgents([{ id: 'alpha', name: 'A', token: 'plaintext' }]);
    await expect(started()).rejects.toThrow(/AHP_AGENT_TOKENS_FILE: .*does not match the agent tokens schema/);
    const token = newToken();
    await writeAgents([entry('alpha', token), entry('beta', token)]);
    await expect(started()).rejects.toThrow(/two agents share one token/);
  });

  it('reloads without a restart: new tokens work, revoked ones stop, listeners hear of it', async () => {
    const alphaToken = newToken();
    const betaToken = newToken();
    await writeAgents([entry('alpha', alphaToken)]);
    const auth = await started();
    const alpha = auth.authenticateToken(alphaToken);
    if (!alpha.ok) throw new Error('alpha should authenticate');
    expect(auth.authenticateToken(betaToken).ok).toBe(false);

    let reloads = 0;
    const unsubscribe = auth.onReload(() => reloads++);
    await writeAgents([entry('alpha', alphaToken, { revoked: true }), entry('beta', betaToken)]);
    await expect(auth.reload()).resolves.toEqual({ ok: true, agents: 1, revoked: 1 });
    expect(reloads).toBe(1);
    expect(auth.authenticateToken(betaToken).ok).toBe(true);
    expect(auth.authenticateToken(alphaToken)).toEqual({ ok: false, reason: 'revoked_token' });
    expect(auth.tokenStatus(alpha.agent)).toBe('revoked');

    await writeAgents([entry('beta', betaToken)]);
    await auth.reload();
    expect(auth.tokenStatus(alpha.agent)).toBe('unknown');
    unsubscribe();
    await auth.reload();
    expect(reloads).toBe(2);
  });

  it('keeps the previous tokens when a reload fails', async () => {
    const token = newToken();
    await writeAgents([entry('alpha', token)]);
    const auth = await started();
    await writeFile(file, 'not json');
    const result = await auth.reload();
    expect(result.ok).toBe(false);
    expect(auth.authenticateToken(token).ok).toBe(true);
    expect(logLines.some((line) => line.includes('agent tokens reload failed'))).toBe(true);
  });

  it('does not log tokens', async () => {
    const token = newToken();
    await writeAgents([entry('alpha', token)]);
    const auth = await started();
    auth.authenticateToken(token);
    auth.authenticateToken(`${token}x`);
    expect(logLines.join('\n')).not.toContain(token);
  });
});
