import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseHookContext } from './hook-context.js';
import { McpGatewayConfigSchema, mcpToolName, mcpToolVisible } from './mcp-gateway.js';

const server = (extra: Record<string, unknown> = {}) => ({ id: 'files', upstream: { url: 'http://127.0.0.1:9000/mcp' }, ...extra });

describe('McpGatewayConfigSchema', () => {
  it('fills the defaults: 30 s timeout, fail closed, 8 calls in flight per agent, nothing denied, no extra patterns', () => {
    const config = McpGatewayConfigSchema.parse({ version: 1, servers: [server()] });
    expect(config.servers[0]).toMatchObject({
      timeout_ms: 30_000,
      failure_policy: 'fail_closed',
      max_concurrent_calls_per_agent: 8,
      tools: { deny: [] },
      redact: { patterns: [] },
    });
  });

  it('accepts a stdio upstream', () => {
    const parsed = McpGatewayConfigSchema.safeParse({ version: 1, servers: [{ id: 'local', upstream: { command: 'node', args: ['server.js'], env: { MODE: 'x' } } }] });
    expect(parsed.success).toBe(true);
  });

  it.each([
    ['a misspelt field', { version: 1, servers: [server({ tools: { denny: ['x'] } })] }, 'servers.0.tools'],
    ['a server id that is not a path segment', { version: 1, servers: [server({ id: 'Files/../x' })] }, 'servers.0.id'],
    ['the same id twice', { version: 1, servers: [server(), server()] }, 'servers.1.id'],
    ['a regex that does not compile', { version: 1, servers: [server({ redact: { patterns: ['(['] } })] }, 'servers.0.redact.patterns.0'],
    ['an upstream URL that is not http', { version: 1, servers: [server({ upstream: { url: 'file:///etc/passwd' } })] }, 'servers.0.upstream'],
    ['a timeout of zero', { version: 1, servers: [server({ timeout_ms: 0 })] }, 'servers.0.timeout_ms'],
    ['no call in flight allowed', { version: 1, servers: [server({ max_concurrent_calls_per_agent: 0 })] }, 'servers.0.max_concurrent_calls_per_agent'],
  ])('refuses %s, naming the path', (_, input, path) => {
    const parsed = McpGatewayConfigSchema.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toContainEqual(expect.stringContaining(path));
  });
});

describe('mcpToolVisible', () => {
  const config = (tools: Record<string, unknown>) => McpGatewayConfigSchema.parse({ version: 1, servers: [server({ tools })] }).servers[0]!;
  const anyone = {};

  it('hides denied tools, by name or pattern', () => {
    const files = config({ deny: ['delete_*', 'format_disk'] });
    expect(mcpToolVisible(files, 'read_file', anyone)).toBe(true);
    expect(mcpToolVisible(files, 'delete_file', anyone)).toBe(false);
    expect(mcpToolVisible(files, 'format_disk', anyone)).toBe(false);
  });

  it('with an allow list shows only its tools, and deny still wins', () => {
    const files = config({ allow: ['read_*'], deny: ['read_secrets'] });
    expect(mcpToolVisible(files, 'read_file', anyone)).toBe(true);
    expect(mcpToolVisible(files, 'write_file', anyone)).toBe(false);
    expect(mcpToolVisible(files, 'read_secrets', anyone)).toBe(false);
  });

  it("scopes entries to the token's team, role and environment; every given scope must match", () => {
    const files = config({
      allow: ['read_*', { tools: ['write_*'], teams: ['platform'] }, { tools: ['deploy'], roles: ['lead'], environments: ['staging'] }],
      deny: [{ tools: ['write_config'], environments: ['production'] }],
    });
    const platformProd = { team: 'platform', role: 'teammate' as const, environment: 'production' };
    expect(mcpToolVisible(files, 'write_file', platformProd)).toBe(true);
    expect(mcpToolVisible(files, 'write_config', platformProd)).toBe(false);
    expect(mcpToolVisible(files, 'write_config', { ...platformProd, environment: 'staging' })).toBe(true);
    expect(mcpToolVisible(files, 'write_file', { team: 'web' })).toBe(false);
    expect(mcpToolVisible(files, 'write_file', anyone)).toBe(false);
    expect(mcpToolVisible(files, 'deploy', { role: 'lead', environment: 'staging' })).toBe(true);
    expect(mcpToolVisible(files, 'deploy', { role: 'lead', environment: 'production' })).toBe(false);
    expect(mcpToolVisible(files, 'deploy', { role: 'teammate', environment: 'staging' })).toBe(false);
  });

  it('refuses a scoped entry without tools or with an unknown scope', () => {
    expect(McpGatewayConfigSchema.safeParse({ version: 1, servers: [server({ tools: { deny: [{ teams: ['x'] }] } })] }).success).toBe(false);
    expect(McpGatewayConfigSchema.safeParse({ version: 1, servers: [server({ tools: { deny: [{ tools: ['x'], team: 'x' }] } })] }).success).toBe(false);
  });
});

describe('the mcp field of tool hook contexts', () => {
  it('is accepted at pre-tool-use and post-tool-use with the Claude Code style tool name', () => {
    expect(mcpToolName('files', 'read_file')).toBe('mcp__files__read_file');
    const call = { tool: { name: mcpToolName('files', 'read_file'), input: { path: '/a' } }, mcp: { server: 'files', tool: 'read_file' } };
    expect(parseHookContext('pre-tool-use', call).ok).toBe(true);
    expect(parseHookContext('post-tool-use', { ...call, tool: { ...call.tool, ok: true, output: 'x' } }).ok).toBe(true);
  });

  it('is strict: an unknown field inside it is refused', () => {
    const result = parseHookContext('pre-tool-use', { tool: { name: 'x', input: {} }, mcp: { server: 'files', tool: 'x', trusted: true } });
    expect(result.ok).toBe(false);
  });
});

describe('docs/mcp-gateway.md', () => {
  it('shows a configuration file the schema accepts', () => {
    const doc = readFileSync(new URL('../../../docs/mcp-gateway.md', import.meta.url), 'utf8');
    const example = /```json\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(example).toBeDefined();
    const lines = (example ?? '').split('\n').map((line) => line.replace(/^ {3}/, ''));
    const parsed = McpGatewayConfigSchema.safeParse(JSON.parse(lines.join('\n')));
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  });
});
