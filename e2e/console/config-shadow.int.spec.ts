// The configuration page's shadow panel in a real browser (Debian's Chromium): a private Redis, one
// gateway, one oracle-worker, the built console. An admin sets a shadow that blocks a force push,
// an SDK agent's traffic makes it disagree, the panel shows the rate, the rule and the example; a
// viewer sees it all without the buttons; the admin promotes it, then sets and drops another. Hooks
// a busy worker did not shadow are shown beside the rate, which leaves them out.
import { connect, type AhpClient } from '@ahp/sdk';
import { createKeys, createShadowConfigStore } from '@ahp/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { allWorkersServe, NO_FORCE_PUSH_CONFIG, NO_SUDO_CONFIG, publishThroughStore, serviceLog } from '../system/config-support.js';
import { eventually } from '../system/harness.js';
import { startConsoleSuite, type ConsoleSuite, type OperatorId } from './console-harness.js';

const LIVE = NO_SUDO_CONFIG;
const SHADOW = NO_FORCE_PUSH_CONFIG;

describe('configuration page: the shadow panel', () => {
  let suite: ConsoleSuite;
  let agent: AhpClient;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    suite = await startConsoleSuite('console-shadow', [{ id: 'pusher', name: 'Pusher' }]);
    await allWorkersServe(suite.system, await publishThroughStore(suite.system, LIVE));
    agent = await connect({ url: suite.agentUrl(), token: suite.system.token('pusher') });
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled(contexts.map((context) => context.close()));
    await agent?.close();
    await suite?.stop();
  });

  async function configPage(operatorId: OperatorId): Promise<Page> {
    const { context, page } = await suite.signIn(operatorId);
    contexts.push(context);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Configuration' }).click();
    await page.getByRole('heading', { level: 1, name: 'Configuration' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Shadow version' }).waitFor();
    return page;
  }

  const workerShadows = (shadow: number) =>
    eventually(
      async () => ((await serviceLog(suite.system, suite.system.stack.workers[0]!.name)).includes(`"shadow configuration ${shadow} evaluated beside the live one"`) ? true : undefined),
      `the worker to evaluate shadow ${shadow}`,
    );

  it('an admin shadows a candidate and sees where it disagrees; a viewer reads it without buttons; the admin promotes it, then drops another', async () => {
    const admin = await configPage('op-ada');
    const panel = admin.getByTestId('shadow-panel');
    await panel.getByText('No shadow version.').waitFor();
    await panel.getByLabel('Shadow hooks.yaml').fill(SHADOW);
    await panel.getByRole('button', { name: 'Validate and shadow' }).click();
    await panel.getByText('Shadow 1 set; workers evaluate it within seconds.').waitFor();
    await panel.getByText('Shadow 1', { exact: true }).waitFor();
    await workerShadows(1);

    const forced = await agent.hook('pre-tool-use', { tool: { name: 'bash', input: { command: 'git push --force origin main' } } });
    const plain = await agent.hook('pre-tool-use', { tool: { name: 'bash', input: { command: 'git status' } } });
    expect([forced.allowed, plain.allowed]).toEqual([true, true]);

    // The panel re-reads on fleet events; Refresh only hurries it along.
    await expect
      .poll(async () => {
        await panel.getByRole('button', { name: 'Refresh' }).click();
        return panel.getByTestId('shadow-evaluated').textContent();
      })
      .toBe('2');
    expect(await panel.getByTestId('shadow-disagreements').textContent()).toBe('1');
    expect(await panel.getByTestId('shadow-rate').textContent()).toBe('50 %');
    const rule = panel.locator('tr[data-rule="shell/no-force-push"]');
    expect(await rule.locator('td').allTextContents()).toEqual(['1', '1', '50 %', 'allow → block 1']);
    const example = panel.locator(`tr[data-hook-id="${forced.hookId}"]`);
    await example.getByText('allow → block').waitFor();
    await example.getByText('pusher').waitFor();
    expect(await panel.getByTestId('shadow-skipped').textContent()).toBe('0');
    expect(await panel.getByText('of the hooks were not shadowed').count()).toBe(0);
    await suite.screenshot(admin, 'config-shadow');
    // Hooks a busy worker did not shadow, counted as the workers count them: the panel says the rate leaves them out.
    await createShadowConfigStore({ redis: suite.system.redis, keys: createKeys({ prefix: suite.system.keyPrefix }) }).recordSkipped(1, 2);
    await panel.getByRole('button', { name: 'Refresh' }).click();
    await panel.getByRole('note').getByText('50 % of the hooks were not shadowed').waitFor();
    expect(await panel.getByTestId('shadow-skipped').textContent()).toBe('2');
    expect(await panel.getByTestId('shadow-rate').textContent()).toBe('50 %');

    const viewer = await configPage('op-viv');
    const viewed = viewer.getByTestId('shadow-panel');
    await viewed.getByText('Shadow 1', { exact: true }).waitFor();
    expect(await viewed.getByTestId('shadow-disagreements').textContent()).toBe('1');
    await viewed.getByText('Setting, promoting or dropping a shadow version needs the admin role').waitFor();
    expect(await viewed.getByRole('button', { name: /Promote|Drop|Validate and shadow/ }).count()).toBe(0);

    await panel.getByRole('button', { name: 'Promote shadow 1 to live' }).click();
    await panel.getByText('Shadow 1 is live as version 2.').waitFor();
    await panel.getByText('No shadow version.').waitFor();
    await admin.getByText(/Version 2\s*published by op-ada/).first().waitFor();
    await allWorkersServe(suite.system, 2);
    expect((await agent.hook('pre-tool-use', { tool: { name: 'bash', input: { command: 'git push -f' } } })).allowed).toBe(false);

    await panel.getByLabel('Shadow hooks.yaml').fill(LIVE);
    await panel.getByRole('button', { name: 'Validate and shadow' }).click();
    await panel.getByText('Shadow 2 set; workers evaluate it within seconds.').waitFor();
    await panel.getByRole('button', { name: 'Drop shadow 2' }).click();
    await panel.getByText('Shadow 2 dropped.').waitFor();
    await panel.getByText('No shadow version.').waitFor();
  });
});
