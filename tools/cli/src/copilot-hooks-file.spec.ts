import { COPILOT_EVENTS, CopilotHooksFileSchema, type CopilotHooksFile } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { copilotAhpHook, isCopilotAhpHook, withCopilotAhpHooks } from './copilot-hooks-file.js';

const GATEWAY = 'http://gw.example:8080';

describe('withCopilotAhpHooks', () => {
  it('writes version 1 and one command per event AHP evaluates, naming the event', () => {
    const file = withCopilotAhpHooks({}, GATEWAY);
    expect(file.version).toBe(1);
    expect(Object.keys(file.hooks ?? {})).toEqual([...COPILOT_EVENTS]);
    expect(file.hooks?.['preToolUse']).toEqual([{ type: 'command', bash: `ahp hook copilot preToolUse --gateway ${GATEWAY}`, timeoutSec: 15 }]);
    // The permission prompt may be held while an operator decides: it gets 60 s.
    expect(file.hooks?.['permissionRequest']).toEqual([{ type: 'command', bash: `ahp hook copilot permissionRequest --gateway ${GATEWAY}`, timeoutSec: 60 }]);
    expect(CopilotHooksFileSchema.safeParse(file).success).toBe(true);
  });

  it('keeps the other handlers and events, replaces an earlier run\'s, and changes nothing the second time', () => {
    const existing: CopilotHooksFile = {
      version: 1,
      hooks: {
        preToolUse: [{ type: 'command', bash: './scripts/audit.sh', powershell: './scripts/audit.ps1', timeoutSec: 5 }, copilotAhpHook('preToolUse', 'http://old:1')],
        errorOccurred: [{ type: 'command', bash: './notify.sh' }],
      },
    };
    const before = structuredClone(existing);
    const once = withCopilotAhpHooks(existing, GATEWAY, '/home/dev/.copilot/ahp-token');
    expect(existing).toEqual(before);
    expect(once.hooks?.['errorOccurred']).toEqual(existing.hooks?.['errorOccurred']);
    expect(once.hooks?.['preToolUse']).toEqual([existing.hooks?.['preToolUse']?.[0], copilotAhpHook('preToolUse', GATEWAY, '/home/dev/.copilot/ahp-token')]);
    expect(once.hooks?.['preToolUse']?.[1]?.bash).toBe(`ahp hook copilot preToolUse --gateway ${GATEWAY} --token-file /home/dev/.copilot/ahp-token`);
    expect(withCopilotAhpHooks(once, GATEWAY, '/home/dev/.copilot/ahp-token')).toEqual(once);
  });

  it('recognises only its own handlers', () => {
    expect(isCopilotAhpHook({ type: 'command', bash: 'npx ahp hook copilot agentStop' })).toBe(true);
    expect(isCopilotAhpHook({ type: 'command', bash: 'ahp hook codex' })).toBe(false);
    expect(isCopilotAhpHook({ type: 'prompt' })).toBe(false);
  });
});
