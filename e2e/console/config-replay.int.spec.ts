// Starts: a private Redis, one gateway and one oracle-worker process, the built ops console
// (`next start`) and Debian's Chromium (playwright-core). An SDK agent makes recorded traffic; an
// operator replays a candidate configuration on the console's configuration page.
//
// The replay panel end to end: a candidate that does not validate is refused with its lines; one
// that blocks `git push --force` replayed over the recorded hooks shows exactly the force pushes as
// allow → block, per rule and per agent, with the recorded commands in its examples. Then the last
// step: a viewer sees why there is no button; an admin sets the replayed candidate as the shadow,
// then publishes it, and the workers' store holds exactly the text that was replayed. Last, a
// candidate uploaded as a file fills the editor, and a replay cancelled while it waits for a worker
// (the only worker is stopped first, so the replay cannot finish before the click) is shown as
// cancelled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import type { JsonObject } from '@ahp/protocol';
import { connect, type AhpClient } from '@ahp/sdk';
import { createKeys, createReplayLog } from '@ahp/store';
import { allWorkersServe, configStore, publishThroughStore } from '../system/config-support.js';
import { eventually } from '../system/harness.js';
import { startConsoleSuite, type ConsoleSuite } from './console-harness.js';

const LIVE = `version: 1
hooks:
  pre-tool-use:
    oracles:
      - name: guard
        use: rules
        rules:
          - id: no-sudo
            condition: 'tool.name == "bash" and tool.input.command matches /^sudo /'
            intensity: block
`;

const CANDIDATE = `${LIVE}          - id: no-force-push
            condition: 'tool.name == "bash" and tool.input.command matches /git push (--force|-f)/'
            intensity: block
`;

const COMMANDS = ['git status', 'git push --force origin main', 'npm test', 'git push -f origin fix', 'git push origin main'];

describe('ops console: replaying a candidate configuration', () => {
  let suite: ConsoleSuite;
  let client: AhpClient | undefined;
  const contexts: BrowserContext[] = [];
  const forcePushes: string[] = [];

  beforeAll(async () => {
    suite = await startConsoleSuite('console-replay', [{ id: 'pusher', name: 'Pusher' }]);
    await allWorkersServe(suite.system, await publishThroughStore(suite.system, LIVE));
    client = await connect({ url: suite.agentUrl(), token: suite.system.token('pusher') });
    const hookIds: string[] = [];
    for (const command of COMMANDS) {
      const result = await client.hook('pre-tool-use', { tool: { name: 'bash', input: { command } } } satisfies JsonObject);
      hookIds.push(result.hookId);
      if (command.includes('-f')) forcePushes.push(result.hookId);
    }
    const log = createReplayLog({ redis: suite.system.redis, keys: createKeys({ prefix: suite.system.keyPrefix }) });
    await eventually(async () => {
      let found = 0;
      for await (const item of log.read({ sinceMs: Date.now() - 600_000, untilMs: Date.now() + 1000 })) if (item.kind === 'record' && hookIds.includes(item.record.hook_id)) found += 1;
      return found === hookIds.length ? true : undefined;
    }, 'the recorded hooks');
  }, 180_000);

  afterAll(async () => {
    await Promise.allSettled(contexts.map((context) => context.close()));
    await client?.close();
    await suite?.stop();
  });

  it('refuses an invalid candidate with its lines, then shows exactly the force pushes as allow → block', async () => {
    const { context, page } = await suite.signIn('op-viv');
    contexts.push(context);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Configuration' }).click();
    await page.getByRole('heading', { level: 1, name: 'Configuration' }).waitFor();
    const panel = page.getByRole('form', { name: 'Replay a candidate' });
    const editor = panel.getByLabel('Candidate hooks.yaml');
    // Prefilled with the current version.
    expect(await editor.inputValue()).toBe(LIVE);

    await editor.fill(CANDIDATE.replace("matches /git push (--force|-f)/'", "matches'"));
    await panel.getByRole('button', { name: 'Run replay' }).click();
    const refusal = panel.getByRole('alert');
    await refusal.getByText('Not replayed.').waitFor();
    expect(await refusal.textContent()).toMatch(/Line 12, column \d+ hooks\.pre-tool-use\.oracles\[0\]\.rules\[1\]\.condition/);

    await editor.fill(CANDIDATE);
    await panel.getByLabel('Window').selectOption({ label: 'last hour' });
    await panel.getByLabel('Trigger').selectOption('pre-tool-use');
    await panel.getByRole('button', { name: 'Run replay' }).click();
    const report = panel.getByLabel('Replay report');
    await report.getByText(`${COMMANDS.length} hooks replayed: 2 would change`).waitFor({ timeout: 30_000 });

    const transitions = report.getByRole('table', { name: 'Transitions' });
    expect((await transitions.getByRole('row').allTextContents()).slice(1)).toEqual(['allow → block2']);
    const rules = report.getByRole('table', { name: 'By rule' });
    expect((await rules.getByRole('row').allTextContents()).slice(1)).toEqual(['guard/no-force-push2allow → block 2']);
    const agents = report.getByRole('table', { name: 'By agent' });
    expect((await agents.getByRole('row').allTextContents()).slice(1)).toEqual(['pusher52']);
    await report.getByRole('list', { name: 'Changed decisions by transition' }).getByText('allow → block').waitFor();

    const examples = report.getByRole('list', { name: 'Changed hooks' }).getByRole('listitem');
    expect(await examples.count()).toBe(2);
    const shown: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const example = examples.nth(i);
      await example.locator('summary').click();
      shown.push((await example.textContent()) ?? '');
    }
    expect(shown.some((text) => text.includes('git push --force origin main'))).toBe(true);
    expect(shown.some((text) => text.includes('git push -f origin fix'))).toBe(true);
    for (const id of forcePushes) expect(shown.some((text) => text.includes(id))).toBe(true);
    await suite.screenshot(page, 'config-replay');

    // A viewer may replay but neither publish nor shadow: a note, no button.
    const next = panel.getByRole('region', { name: 'Then publish — or not' });
    expect(await next.count()).toBe(0);
    await panel.getByRole('note').getByText('Publishing this candidate or shadowing it needs the admin role and a fleet-wide token.').waitFor();
    expect(await panel.getByRole('button', { name: 'Publish this candidate' }).count()).toBe(0);
    expect(await panel.getByRole('button', { name: 'Set it as the shadow version' }).count()).toBe(0);
  });

  it('an admin shadows the replayed candidate, then publishes it: exactly the replayed text becomes live', async () => {
    const { context, page } = await suite.signIn('op-ada');
    contexts.push(context);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Configuration' }).click();
    await page.getByRole('heading', { level: 1, name: 'Configuration' }).waitFor();
    const panel = page.getByRole('form', { name: 'Replay a candidate' });
    const editor = panel.getByLabel('Candidate hooks.yaml');
    await editor.fill(CANDIDATE);
    await panel.getByRole('button', { name: 'Run replay' }).click();
    await panel.getByLabel('Replay report').getByText(`${COMMANDS.length} hooks replayed: 2 would change`).waitFor({ timeout: 30_000 });
    // Edits after the replay do not leak into what the next step applies.
    await editor.fill(`${CANDIDATE}# edited after the replay\n`);
    const next = panel.getByRole('region', { name: 'Then publish — or not' });
    await next.getByText('The text was edited since this replay').waitFor();

    await next.getByRole('button', { name: 'Set it as the shadow version' }).click();
    await next.getByRole('status').getByText('Shadow 1 set to the replayed candidate').waitFor();
    const shadowPanel = page.getByTestId('shadow-panel');
    await shadowPanel.getByText('Shadow 1', { exact: true }).waitFor();
    expect(await shadowPanel.getByLabel('hooks.yaml of shadow 1').textContent()).toBe(CANDIDATE);

    await next.getByRole('button', { name: 'Publish this candidate' }).click();
    await next.getByRole('status').getByText('Published the replayed candidate as version 2; it is current now.').waitFor();
    await page.getByRole('region', { name: 'Current version' }).getByText('Version 2', { exact: true }).waitFor();
    expect(await configStore(suite.system).current()).toMatchObject({ version: 2, source: CANDIDATE, published_by: 'op-ada' });
    await suite.screenshot(page, 'config-replay-publish');
  });

  it('uploads a candidate file, and a replay cancelled while it waits for a worker is shown as cancelled', async () => {
    const { context, page } = await suite.signIn('op-viv');
    contexts.push(context);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Configuration' }).click();
    await page.getByRole('heading', { level: 1, name: 'Configuration' }).waitFor();
    const panel = page.getByRole('form', { name: 'Replay a candidate' });
    const uploaded = `${LIVE}# uploaded from a file\n`;
    await panel.getByLabel('Upload a file').setInputFiles({ name: 'candidate.yaml', mimeType: 'text/yaml', buffer: Buffer.from(uploaded) });
    await expect.poll(() => panel.getByLabel('Candidate hooks.yaml').inputValue()).toBe(uploaded);

    // No worker takes the replay: it stays running (waiting) until cancelled.
    for (const worker of suite.system.stack.workers) await worker.stop();
    await panel.getByRole('button', { name: 'Run replay' }).click();
    await panel.getByRole('status').getByText('Waiting for a worker…').waitFor();
    await panel.getByRole('button', { name: 'Cancel' }).click();
    await panel.getByRole('alert').getByText('Replay cancelled.').waitFor();
    expect(await panel.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    expect(await panel.getByLabel('Replay report').count()).toBe(0);
    expect(await panel.getByRole('button', { name: 'Run replay' }).isEnabled()).toBe(true);
  });
});
