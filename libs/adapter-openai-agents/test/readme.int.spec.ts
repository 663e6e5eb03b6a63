// Runs: tsc, on the README's snippet as a module of this package (tools/adapter-harness), so the
// code a newcomer pastes type-checks against the installed framework and this package's types.
import { fileURLToPath } from 'node:url';
import { typecheckReadmeSnippet } from '@ahp/adapter-harness';
import { describe, expect, it } from 'vitest';

describe('README', () => {
  it('its snippet type-checks as pasted', async () => {
    const diagnostics = await typecheckReadmeSnippet(fileURLToPath(new URL('..', import.meta.url)), `declare function runShell(command: string): Promise<string>;`);
    expect(diagnostics).toBe('');
  });
});
