import { CODEX_EVENTS, CodexHooksFileSchema, type CodexHooksFile } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { PROJECT_TOKEN_FILE, codexAhpHook, isCodexAhpHook, shellQuote, withCodexAhpHooks } from './codex-hooks-file.js';
import { withIgnored } from './init-codex.js';

const GATEWAY = 'http://gw.example:8080';

describe('withCodexAhpHooks', () => {
  it('adds a command hook for every Codex event AHP maps to an empty file', () => {
    const file = withCodexAhpHooks({}, GATEWAY, PROJECT_TOKEN_FILE);
    expect(Object.keys(file.hooks ?? {})).toEqual([...CODEX_EVENTS]);
    for (const event of CODEX_EVENTS) {
      expect(file.hooks?.[event]).toEqual([
        // The permission prompt may be held while an operator decides: it gets 60 s.
        { hooks: [{ type: 'command', command: `ahp hook codex --gateway ${GATEWAY} --token-file "$(git rev-parse --show-toplevel)/.codex/ahp-token"`, timeout: event === 'PermissionRequest' ? 60 : 15 }] },
      ]);
    }
    expect(CodexHooksFileSchema.safeParse(file).success).toBe(true);
  });

  it('keeps the other hooks, groups, events and root fields, and the input unchanged', () => {
    const existing: CodexHooksFile = {
      description: 'team hooks',
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'python3 .codex/hooks/check.py', statusMessage: 'checking' }] }],
        Notification: [{ hooks: [{ type: 'command', command: './log.sh' }] }],
      },
    };
    const before = structuredClone(existing);
    const file = withCodexAhpHooks(existing, GATEWAY, PROJECT_TOKEN_FILE);
    expect(existing).toEqual(before);
    expect(file.description).toBe('team hooks');
    expect(file.hooks?.['Notification']).toEqual(existing.hooks?.['Notification']);
    expect(file.hooks?.['PreToolUse']).toEqual([existing.hooks?.['PreToolUse']?.[0], { hooks: [codexAhpHook(GATEWAY, PROJECT_TOKEN_FILE)] }]);
  });

  it('replaces the AHP hooks of an earlier run (another gateway too), so a second run changes nothing', () => {
    const once = withCodexAhpHooks({}, 'http://old:1', PROJECT_TOKEN_FILE);
    const twice = withCodexAhpHooks(withCodexAhpHooks(once, GATEWAY, PROJECT_TOKEN_FILE), GATEWAY, PROJECT_TOKEN_FILE);
    expect(twice).toEqual(withCodexAhpHooks({}, GATEWAY, PROJECT_TOKEN_FILE));
  });

  it('keeps a group\'s own hooks when it also held an AHP hook, and drops a group that held only AHP hooks', () => {
    const mixed: CodexHooksFile = { hooks: { Stop: [{ hooks: [{ type: 'command', command: './notify.sh' }, codexAhpHook('http://old:1', PROJECT_TOKEN_FILE)] }] } };
    expect(withCodexAhpHooks(mixed, GATEWAY, PROJECT_TOKEN_FILE).hooks?.['Stop']).toEqual([
      { hooks: [{ type: 'command', command: './notify.sh' }] },
      { hooks: [codexAhpHook(GATEWAY, PROJECT_TOKEN_FILE)] },
    ]);
  });
});

describe('isCodexAhpHook', () => {
  it('recognises ahp hook codex however ahp is reached, and nothing else', () => {
    expect(isCodexAhpHook({ type: 'command', command: 'ahp hook codex --gateway x' })).toBe(true);
    expect(isCodexAhpHook({ type: 'command', command: '/usr/local/bin/ahp hook codex' })).toBe(true);
    expect(isCodexAhpHook({ type: 'command', command: 'node tools/cli/bin/ahp.js hook codex' })).toBe(true);
    expect(isCodexAhpHook({ type: 'command', command: 'ahp hook claude-code' })).toBe(false);
    expect(isCodexAhpHook({ type: 'command', command: 'myahp hook codexx' })).toBe(false);
    expect(isCodexAhpHook({ type: 'prompt' })).toBe(false);
  });
});

describe('shellQuote and withIgnored', () => {
  it('quotes what the shell would split or expand', () => {
    expect(shellQuote('/home/dev/.codex/ahp-token')).toBe('/home/dev/.codex/ahp-token');
    expect(shellQuote("/home/o'neil/my dir/t")).toBe("'/home/o'\\''neil/my dir/t'");
    expect(shellQuote('$HOME/x')).toBe("'$HOME/x'");
  });

  it('adds the token file to .gitignore once, keeping what is there', () => {
    expect(withIgnored('', 'ahp-token')).toBe('ahp-token\n');
    expect(withIgnored('*.log', 'ahp-token')).toBe('*.log\nahp-token\n');
    expect(withIgnored('*.log\nahp-token\n', 'ahp-token')).toBeUndefined();
    expect(withIgnored('/ahp-token\n', 'ahp-token')).toBeUndefined();
  });
});
