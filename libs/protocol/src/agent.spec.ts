import { describe, expect, it } from 'vitest';
import { AgentCredentialsFileSchema, AgentIdentitySchema, AgentTokensFileSchema } from './agent.js';

const digest = (c: string) => c.repeat(64);

describe('AgentIdentitySchema', () => {
  it('accepts an agent with team and role', () => {
    expect(AgentIdentitySchema.parse({ id: 'alice', name: 'Alice', team: 'core', role: 'teammate' })).toEqual({
      id: 'alice',
      name: 'Alice',
      team: 'core',
      role: 'teammate',
    });
  });

  it('rejects an unknown role and smuggled keys', () => {
    const result = AgentIdentitySchema.safeParse({ id: 'a', name: 'A', role: 'admin', admin: true });
    expect(result.success).toBe(false);
    const codes = result.error!.issues.map((i) => `${i.path.join('.')}:${i.code}`);
    expect(codes).toContain('role:invalid_value');
    expect(codes).toContain(':unrecognized_keys');
  });
});

describe('AgentTokensFileSchema', () => {
  it('accepts distinct agents and digests', () => {
    const file = {
      agents: [
        { id: 'lead', name: 'Lead', role: 'lead', token_sha256: digest('a') },
        { id: 'bob', name: 'Bob', token_sha256: digest('b'), revoked: true },
      ],
    };
    expect(AgentTokensFileSchema.parse(file).agents).toHaveLength(2);
  });

  it('names duplicate ids and shared tokens by path', () => {
    const result = AgentTokensFileSchema.safeParse({
      agents: [
        { id: 'a', name: 'A', token_sha256: digest('a') },
        { id: 'a', name: 'A2', token_sha256: digest('a') },
      ],
    });
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => i.path.join('.'))).toEqual(['agents.1.id', 'agents.1.token_sha256']);
  });

  it('rejects a plain-text token or an upper-case digest', () => {
    const plain = AgentTokensFileSchema.safeParse({ agents: [{ id: 'a', name: 'A', token_sha256: 'secret' }] });
    const upper = AgentTokensFileSchema.safeParse({ agents: [{ id: 'a', name: 'A', token_sha256: digest('A') }] });
    expect(plain.error!.issues[0]!.message).toMatch(/SHA-256/);
    expect(upper.success).toBe(false);
  });
});

describe('AgentCredentialsFileSchema', () => {
  it('accepts one plain token per agent and refuses a repeated id or a short token', () => {
    const token = 'ahp_' + 'x'.repeat(40);
    expect(AgentCredentialsFileSchema.parse({ agents: [{ id: 'demo-coder', token }] }).agents).toHaveLength(1);
    expect(AgentCredentialsFileSchema.safeParse({ agents: [{ id: 'a', token }, { id: 'a', token: `${token}y` }] }).success).toBe(false);
    expect(AgentCredentialsFileSchema.safeParse({ agents: [{ id: 'a', token: 'short' }] }).success).toBe(false);
  });
});
