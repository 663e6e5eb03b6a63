// The fleet's view kept in the URL and the signal page's uPlot chart and per-rule view, in a real
// browser: a private Redis, one gateway and one oracle-worker process, the built console
// (`next start`) and Debian's Chromium (playwright-core). SDK agents connect and act; operators
// filter, reload, go back and forward, share a link, hover, drag and reset the chart.
// Screenshots at laptop and phone width go to test-results/console-screenshots/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { PublishConfigResponseSchema, type AgentIdentity } from '@ahp/protocol';
import { connect, type AhpClient } from '@ahp/sdk';
import { allWorkersServe } from '../system/config-support.js';
import { operatorCall } from '../system/team-support.js';
import { NO_SUDO_CONFIG } from '../system/config-support.js';
import { LAPTOP_VIEWPORT, PHONE_VIEWPORT, docShot, liveReady, startConsoleSuite, type ConsoleSuite, type OperatorId } from './console-harness.js';

/** Two rules: sudo is blocked, `npm install` is rewritten to `npm ci` (a control). */
const RULES = `${NO_SUDO_CONFIG}          - id: prefer-ci
            condition: 'tool.input.command matches /npm install/'
            intensity: control
            message: "prefer npm ci in scripts"
            action: { type: set, target: command, value: "npm ci" }
`;

const AGENTS = [
  { id: 'alpha', name: 'Alpha', team: 'red', role: 'teammate' },
  { id: 'bravo', name: 'Bravo', team: 'blue', role: 'teammate' },
  { id: 'charlie', name: 'Charlie', team: 'red', role: 'teammate' },
  { id: 'driver', name: 'Driver', team: 'ops', role: 'lead' },
] satisfies AgentIdentity[];

describe('console: fleet filters in the URL; the signal chart (zoom, tooltip, reset) and the per-rule view', () => {
  let suite: ConsoleSuite;
  const clients: AhpClient[] = [];
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    suite = await startConsoleSuite('console-views', AGENTS);
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled(contexts.map((context) => context.close()));
    await Promise.allSettled(clients.map((client) => client.close()));
    await suite?.stop();
  });

  async function agent(agentId: string): Promise<AhpClient> {
    const client = await connect({ url: suite.agentUrl(), token: suite.system.token(agentId) });
    clients.push(client);
    return client;
  }

  async function operator(operatorId: OperatorId, viewport = LAPTOP_VIEWPORT): Promise<Page> {
    const { context, page } = await suite.signIn(operatorId, { viewport });
    contexts.push(context);
    return page;
  }

  const rowIds = (page: Page) => page.locator('tbody tr[data-agent-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-agent-id')));

  it('keeps the fleet’s search, filters and sort in the URL: reload, back and forward, and a shared link restore the view', async () => {
    for (const id of ['alpha', 'bravo', 'charlie']) await agent(id);
    const page = await operator('op-viv');
    await liveReady(page);
    await expect.poll(() => rowIds(page)).toEqual(['alpha', 'bravo', 'charlie']);

    const form = page.getByRole('form', { name: 'Fleet search' });
    await form.getByLabel('Team').fill('red');
    await form.getByLabel('Status').selectOption('connected');
    await form.getByLabel('Last decision').selectOption('none');
    await form.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/\?team=red&status=connected&decision=none$|\?status=connected&team=red&decision=none$/);
    await expect.poll(() => rowIds(page)).toEqual(['alpha', 'charlie']);
    const filtered = page.url();

    // Sort by team, descending (ties by agent id, reversed too): a second history entry.
    await form.getByLabel('Sort by').selectOption('team');
    await form.getByLabel('Order').selectOption('desc');
    await form.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/sort=team&order=desc/);
    await expect.poll(() => rowIds(page)).toEqual(['charlie', 'alpha']);

    // A reload opens the same view, the form filled in.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Fleet' }).waitFor();
    await expect.poll(() => rowIds(page)).toEqual(['charlie', 'alpha']);
    expect(await form.getByLabel('Team').inputValue()).toBe('red');
    expect(await form.getByLabel('Status').inputValue()).toBe('connected');
    expect(await form.getByLabel('Sort by').inputValue()).toBe('team');
    expect(await form.getByLabel('Order').inputValue()).toBe('desc');

    // Back: the view before the sort; forward: the sort again.
    await page.goBack();
    await page.waitForURL(filtered);
    await expect.poll(() => form.getByLabel('Sort by').inputValue()).toBe('agent');
    await expect.poll(() => rowIds(page)).toEqual(['alpha', 'charlie']);
    await page.goForward();
    await page.waitForURL(/sort=team&order=desc/);
    await expect.poll(() => rowIds(page)).toEqual(['charlie', 'alpha']);
    await suite.screenshot(page, 'fleet-filtered');
    await docShot(page, 'fleet-filtered');

    // A link shared with another operator opens the same view (at phone width here).
    const other = await operator('op-ada', PHONE_VIEWPORT);
    await other.goto(filtered.replace(suite.baseUrl, ''));
    await expect.poll(() => rowIds(other)).toEqual(['alpha', 'charlie']);
    expect(await other.getByRole('form', { name: 'Fleet search' }).getByLabel('Last decision').inputValue()).toBe('none');
    await suite.screenshot(other, 'fleet-filtered-phone');
    await docShot(other, 'fleet-filtered-phone');

    // A value the gateway would refuse is dropped, not sent: the page still loads every agent.
    await other.goto('/?status=sleeping&sort=name&page=-1');
    await expect.poll(() => rowIds(other)).toEqual(['alpha', 'bravo', 'charlie']);
  });

  it('charts signals with uPlot on the span of the data; hover shows a bucket’s counts, a drag zooms, reset goes back, and the zoomed span becomes the filter; the rule view counts overrides', async () => {
    const publish = await operatorCall(suite.operatorApi(), suite.operators.token('op-ada'), 'POST', '/config', { source: RULES });
    expect(publish, JSON.stringify(publish.json)).toMatchObject({ status: 201 });
    await allWorkersServe(suite.system, PublishConfigResponseSchema.parse(publish.json).version);

    const driver = await agent('driver');
    const answers = ['proceed_with_risk', 'retry_after_fix', 'abort'] as const;
    for (const action of answers) {
      const decision = await driver.hook('pre-tool-use', { tool: { name: 'bash', input: { command: 'sudo apt-get install jq' } } });
      expect(decision.allowed).toBe(false);
      for (const signal of decision.signals) await driver.respond(signal, action);
    }
    for (const action of ['accept_modification', 'reject_modification'] as const) {
      const decision = await driver.hook('pre-tool-use', { tool: { name: 'bash', input: { command: 'npm install' } } });
      expect(decision.signals.map((signal) => signal.header.intensity)).toEqual(['control']);
      for (const signal of decision.signals) await driver.respond(signal, action);
    }

    const page = await operator('op-viv');
    await page.goto('/signals');
    await page.getByRole('heading', { level: 1, name: 'Signal log' }).waitFor();
    await expect.poll(() => page.getByTestId('stat-signals').textContent()).toBe('5');
    const chart = page.getByTestId('signals-time-chart');
    await chart.locator('canvas').waitFor();
    await page.getByRole('img', { name: /^5 signals in 48 time buckets/ }).waitFor();

    // The default range fits the data (a few seconds of signals, padded to a minute), not the 24 h window.
    const span = async () => Date.parse((await chart.getAttribute('data-to'))!) - Date.parse((await chart.getAttribute('data-from'))!);
    const fitted = await span();
    expect(fitted).toBeGreaterThanOrEqual(60_000);
    expect(fitted).toBeLessThan(10 * 60_000);

    // Hovering over the plot: the tooltip names the bucket's counts; across the plot they add up to the five signals.
    const over = chart.locator('.u-over');
    const box = (await over.boundingBox())!;
    const tooltip = page.getByTestId('chart-tooltip');
    const seen = new Map<string, number>();
    for (let x = 1; x < box.width; x += 3) {
      await page.mouse.move(box.x + x, box.y + box.height / 2);
      if (!(await tooltip.isVisible())) continue;
      const text = (await tooltip.textContent()) ?? '';
      const time = (await tooltip.locator('.chart-tooltip-time').textContent()) ?? '';
      seen.set(time, Number(/(\d+) signals?$/.exec(text)?.[1] ?? 0));
    }
    expect([...seen.values()].reduce((sum, count) => sum + count, 0)).toBe(5);
    // Rest the cursor on a bucket with signals for the screenshot.
    const busiest = [...seen.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    for (let x = 1; x < box.width; x += 3) {
      await page.mouse.move(box.x + x, box.y + box.height / 2);
      if ((await tooltip.locator('.chart-tooltip-time').textContent()) === busiest) break;
    }
    expect(await tooltip.textContent()).toMatch(/block \d+/);
    await suite.screenshot(page, 'signals-chart-tooltip');
    await docShot(page.locator('.charts'), 'signals-charts');

    // A drag across the middle fifth zooms in on it; Reset zoom restores the fitted range.
    const fittedFrom = await chart.getAttribute('data-from');
    await page.mouse.move(box.x + box.width * 0.4, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await expect.poll(() => chart.getAttribute('data-zoomed')).toBe('true');
    const zoomed = await span();
    expect(zoomed).toBeLessThan(fitted / 3);
    await page.getByRole('button', { name: 'Reset zoom' }).click();
    await expect.poll(() => chart.getAttribute('data-zoomed')).toBe('false');
    expect(await chart.getAttribute('data-from')).toBe(fittedFrom);

    // Zoom over the whole plot but its edges and make it the page's filter: the URL carries the custom range.
    await page.mouse.move(box.x + 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await page.getByRole('button', { name: 'Filter the log to this range' }).click();
    await page.waitForURL(/window=custom&since=[^&]+&until=/);
    await expect.poll(() => page.getByTestId('stat-signals').textContent()).toBe('5');

    // Per rule: which fire most, which are overridden, which are given up.
    const rules = page.getByTestId('rules-view');
    const row = (rule: string) => rules.locator(`tr[data-rule="${rule}"]`);
    await row('no-sudo').waitFor();
    expect(await rules.locator('tbody tr').evaluateAll((rows) => rows.map((tr) => tr.getAttribute('data-rule')))).toEqual(['no-sudo', 'prefer-ci']);
    expect(await row('no-sudo').getByTestId('rule-overridden').textContent()).toBe('1 (33 %)');
    expect(await row('no-sudo').locator('td[data-label="Given up"]').textContent()).toBe('1');
    expect(await row('prefer-ci').getByTestId('rule-overridden').textContent()).toBe('1 (50 %)');
    await rules.getByLabel('Order the rules').selectOption('overridden');
    await suite.screenshot(page, 'signals-rules');
    await docShot(rules, 'signals-rules');

    const phone = await operator('op-viv', PHONE_VIEWPORT);
    await phone.goto('/signals');
    await phone.getByTestId('signals-time-chart').locator('canvas').waitFor();
    await phone.getByTestId('rules-view').waitFor();
    // Nothing widens the page past the phone's width.
    expect(Number(await phone.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(PHONE_VIEWPORT.width);
    await suite.screenshot(phone, 'signals-phone');
    await phone.getByTestId('signals-time-chart').scrollIntoViewIfNeeded();
    await docShot(phone, 'signals-phone');
  });
});
