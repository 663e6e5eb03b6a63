// The operator conveniences of the console in a real browser (Debian's Chromium against a private
// Redis, one gateway, one oracle-worker and the built console): on /config, Validate without
// publishing, the line diff against the live version and an admin's rollback (audited as one);
// the dark theme that follows the system and the favicon; the approval queue's keyboard
// shortcuts. Screenshots at laptop and phone width, light and dark, go to
// test-results/console-screenshots/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { AuditListResponseSchema, ConfigHistoryResponseSchema, ConfigVersionDetailSchema, PublishConfigResponseSchema, RequestDetailResponseSchema } from '@ahp/protocol';
import { connect, type AhpClient } from '@ahp/sdk';
import { NO_FORCE_PUSH_CONFIG, NO_SUDO_CONFIG } from '../system/config-support.js';
import { operatorCall, samplePlan } from '../system/team-support.js';
import { LAPTOP_VIEWPORT, PHONE_VIEWPORT, docShot, liveReady, startConsoleSuite, type ConsoleSuite, type OperatorId } from './console-harness.js';

const V1 = NO_SUDO_CONFIG;
const V2 = NO_FORCE_PUSH_CONFIG;
/** V2 with its second rule's message changed: one line removed, one added. */
const EDITED = V2.replace('"no force push"', '"never force-push a shared branch"');

describe('console: validate, diff and rollback; dark theme and favicon; queue shortcuts', () => {
  let suite: ConsoleSuite;
  let planner: AhpClient;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    suite = await startConsoleSuite('console-ops', [{ id: 'planner', name: 'Planner', team: 'orders', role: 'teammate' }]);
    planner = await connect({ url: suite.agentUrl(), token: suite.system.token('planner') });
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled(contexts.map((context) => context.close()));
    await planner?.close();
    await suite?.stop();
  });

  async function operator(operatorId: OperatorId, options: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' } = {}): Promise<Page> {
    const { context, page } = await suite.signIn(operatorId, { viewport: options.viewport ?? LAPTOP_VIEWPORT, ...(options.colorScheme ? { colorScheme: options.colorScheme } : {}) });
    contexts.push(context);
    return page;
  }

  const api = (method: 'GET' | 'POST', path: string, body?: unknown) => operatorCall(suite.operatorApi(), suite.operators.token('op-ada'), method, path, body);

  async function publish(source: string): Promise<number> {
    const { status, json } = await api('POST', '/config', { source });
    expect(status).toBe(201);
    return PublishConfigResponseSchema.parse(json).version;
  }

  async function versionCount(): Promise<number> {
    const { json } = await api('GET', '/config/history');
    return ConfigHistoryResponseSchema.parse(json).versions.length;
  }

  async function configPage(page: Page): Promise<void> {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Configuration' }).click();
    await page.getByRole('heading', { level: 1, name: 'Configuration' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Publish a new version' }).or(page.getByRole('heading', { level: 2, name: 'Check a configuration' })).waitFor();
  }

  it('validates without publishing, shows the edit against the live version, and an admin rolls back to v1 (a new version, audited as a rollback); a viewer validates but sees no publish or rollback', async () => {
    expect(await publish(V1)).toBe(1);
    expect(await publish(V2)).toBe(2);

    const admin = await operator('op-ada');
    await configPage(admin);
    const editor = admin.getByLabel('hooks.yaml', { exact: true });
    expect(await editor.inputValue()).toBe(V2);

    // An invalid text: problems with their lines, nothing stored.
    await editor.fill(V2.replace('use: rules', 'use: acme/missing'));
    await admin.getByRole('button', { name: 'Validate', exact: true }).click();
    const issues = admin.locator('#config-issues');
    await issues.getByText('Not valid.').waitFor();
    expect(await issues.getByRole('button', { name: /^Line 6/ }).count()).toBeGreaterThan(0);
    expect(await versionCount()).toBe(2);

    // A valid edit: "Valid", still nothing stored; the diff names the changed line on each side.
    await editor.fill(EDITED);
    await admin.getByRole('button', { name: 'Validate', exact: true }).click();
    await admin.getByText('Valid: this text would publish. Nothing was stored.').waitFor();
    expect(await versionCount()).toBe(2);
    const diff = admin.getByTestId('edit-diff');
    await diff.getByText('Changes against the live version 2').click();
    await expect.poll(() => diff.locator('.diff-summary').textContent()).toMatch(/^\+1 −1 lines/);
    expect(await diff.locator('tr[data-kind="removed"]').allTextContents()).toEqual([expect.stringContaining('message: "no force push"')]);
    expect(await diff.locator('tr[data-kind="added"]').allTextContents()).toEqual([expect.stringContaining('message: "never force-push a shared branch"')]);
    // Line 15 on both sides: the message of the second rule.
    expect(await diff.locator('tr[data-kind="added"] td.diff-number').allTextContents()).toEqual(['', '15']);
    await diff.scrollIntoViewIfNeeded();
    await suite.screenshot(admin, 'config-validate-diff');
    await docShot(diff, 'config-validate-diff');

    // Rollback: two steps from the history table, the diff against live shown before confirming.
    const history = admin.getByRole('table', { name: 'Published versions, newest first' });
    expect(await history.getByRole('button', { name: 'Roll back to v2' }).count()).toBe(0); // v2 is live
    await history.getByRole('button', { name: 'Roll back to v1' }).click();
    const versionCard = admin.getByTestId('version-card');
    await versionCard.getByRole('heading', { name: /^Version 1/ }).waitFor();
    const confirm = versionCard.getByRole('group', { name: 'Roll back to version 1' });
    await confirm.waitFor();
    expect(await versionCard.getByTestId('version-diff').locator('tr[data-kind="removed"]').count()).toBe(4); // v2's second rule goes
    await suite.screenshot(admin, 'config-rollback-confirm');
    await confirm.getByRole('button', { name: 'Publish v1 again' }).click();
    await versionCard.getByText("Rolled back: version 1's text is live as version 3.").waitFor();
    await history.getByRole('row', { name: /^v3/ }).getByText('current').waitFor();

    const live = ConfigVersionDetailSchema.parse((await api('GET', '/config')).json);
    expect([live.version, live.source, live.published_by]).toEqual([3, V1, 'op-ada']);
    const audit = AuditListResponseSchema.parse((await api('GET', '/audit?action=config.publish&limit=1')).json).entries;
    expect(audit.map(({ operator, outcome, details }) => ({ operator: operator.id, outcome, details }))).toEqual([
      { operator: 'op-ada', outcome: 'applied', details: { bytes: Buffer.byteLength(V1), rollback_of: 1, version: 3 } },
    ]);
    await suite.screenshot(admin, 'config-rollback');

    // A viewer: Validate works; no publish button, no rollback anywhere, a note says why.
    const viewer = await operator('op-viv', { viewport: PHONE_VIEWPORT });
    await configPage(viewer);
    await viewer.getByRole('heading', { level: 2, name: 'Check a configuration' }).waitFor();
    expect(await viewer.getByRole('button', { name: 'Validate and publish' }).count()).toBe(0);
    expect(await viewer.getByRole('button', { name: /^Roll back to/ }).count()).toBe(0);
    await viewer.getByRole('button', { name: 'View v1' }).click();
    await viewer.getByTestId('version-card').getByRole('heading', { name: /^Version 1/ }).waitFor();
    expect(await viewer.getByRole('button', { name: /^Roll back to/ }).count()).toBe(0);
    await viewer.getByText('Publishing or rolling back a configuration needs the admin role').waitFor();
    await viewer.getByLabel('hooks.yaml', { exact: true }).fill(EDITED);
    await viewer.getByRole('button', { name: 'Validate', exact: true }).click();
    await viewer.getByText('Valid: this text would publish. Nothing was stored.').waitFor();
    expect(await versionCount()).toBe(3);
    await suite.screenshot(viewer, 'config-viewer-phone');

    // A forged rollback by the viewer is refused by the gateway anyway.
    const forged = await operatorCall(suite.operatorApi(), suite.operators.token('op-viv'), 'POST', '/config', { source: V2, rollback_of: 2 });
    expect(forged.status).toBe(403);
  });

  it('follows a dark system preference and shows the favicon', async () => {
    const light = await operator('op-viv');
    const dark = await operator('op-viv', { colorScheme: 'dark' });
    // Expressions as text: the e2e project compiles without the DOM library.
    const background = (page: Page) => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    expect(await background(light)).toBe('rgb(246, 247, 249)');
    expect(await background(dark)).toBe('rgb(15, 17, 21)');
    expect(await dark.evaluate<string>('getComputedStyle(document.body).color')).toBe('rgb(230, 232, 236)');

    // The favicon: app/icon.svg, linked by Next from every page and served as SVG.
    const href = await light.locator('link[rel="icon"]').getAttribute('href');
    expect(href).toMatch(/^\/icon\.svg/);
    const icon = await light.context().request.get(href!);
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toContain('image/svg+xml');
    expect(await icon.text()).toContain('prefers-color-scheme:dark');

    await suite.screenshot(dark, 'fleet-dark');
    await docShot(dark, 'fleet-dark');
    await configPage(dark);
    await suite.screenshot(dark, 'config-dark');
    const phone = await operator('op-viv', { viewport: PHONE_VIEWPORT, colorScheme: 'dark' });
    await configPage(phone);
    await suite.screenshot(phone, 'config-dark-phone');
    await docShot(phone, 'config-dark-phone');
  });

  it('approval queue shortcuts: j/k select, a approves (not a card warning of hidden characters), r goes to the feedback and Ctrl+Enter rejects, ? shows the list; typing never triggers them', async () => {
    const page = await operator('op-alice');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Approvals/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Approvals' }).waitFor();
    await liveReady(page);

    const first = planner.submitPlan(samplePlan('First plan'), { requestId: 'req_keys_first', approver: 'operators' });
    // The second plan's title hides a zero-width space: its card warns, and a does not approve it.
    const second = planner.submitPlan(samplePlan('Second\u200B plan'), { requestId: 'req_keys_second', approver: 'operators' });
    first.catch(() => undefined);
    second.catch(() => undefined);
    const card = (id: string) => page.locator(`article[data-request-id="${id}"]`);
    await card('req_keys_first').waitFor();
    await card('req_keys_second').waitFor();
    const selectedId = () => page.locator('article[aria-current="true"]').getAttribute('data-request-id');

    // Nothing selected yet: a does nothing but say how to select.
    await page.keyboard.press('a');
    await page.getByText('Select a card first: j (next) or k (previous).').waitFor();
    await page.keyboard.press('j');
    expect(await selectedId()).toBe('req_keys_first');
    await page.keyboard.press('j');
    expect(await selectedId()).toBe('req_keys_second');
    await page.keyboard.press('k');
    expect(await selectedId()).toBe('req_keys_first');

    await page.keyboard.press('?');
    const list = page.getByTestId('queue-shortcuts');
    expect(await list.getAttribute('open')).not.toBeNull();
    expect(await list.locator('kbd').allTextContents()).toEqual(['j', 'k', 'a', 'r', '?']);
    await suite.screenshot(page, 'approvals-shortcuts');
    await docShot(page, 'approvals-shortcuts');
    await page.keyboard.press('Escape');
    await page.keyboard.press('?');
    expect(await list.getAttribute('open')).toBeNull();

    await page.keyboard.press('a');
    await card('req_keys_first').getByText('Approved.', { exact: true }).waitFor();
    expect((await first).approved).toBe(true);

    await page.keyboard.press('j');
    expect(await selectedId()).toBe('req_keys_second');
    expect(await card('req_keys_second').locator('[data-hidden-text-warning] code').allTextContents()).toEqual(['plan.title']);
    await page.keyboard.press('a');
    await page.getByText('This request contains hidden or unusual characters: read it, then approve with its Approve button (a does not approve it).').waitFor();
    expect(await card('req_keys_second').getByRole('button', { name: 'Approve', exact: true }).isEnabled()).toBe(true);
    await page.keyboard.press('r');
    const feedback = card('req_keys_second').getByLabel('Feedback to the agent');
    expect(await page.evaluate<string | null>(`document.activeElement?.closest('article')?.getAttribute('data-request-id') + ' ' + document.activeElement?.getAttribute('data-field')`)).toBe('req_keys_second feedback');
    // Typed text containing j, k, a and r stays text: shortcuts are off in a field.
    await page.keyboard.type('rather keep the report as it is; ask again with a rollback plan');
    expect(await feedback.inputValue()).toBe('rather keep the report as it is; ask again with a rollback plan');
    expect(await selectedId()).toBe('req_keys_second');
    await page.keyboard.press('Control+Enter');
    await card('req_keys_second').getByText('Rejected; the agent gets your feedback.', { exact: true }).waitFor();
    const rejected = await second;
    expect(rejected.approved).toBe(false);
    const { status, json } = await operatorCall(suite.operatorApi(), suite.operators.token('op-ada'), 'GET', '/requests/req_keys_second');
    expect(status).toBe(200);
    expect(RequestDetailResponseSchema.parse(json).request).toMatchObject({ status: 'rejected', decided_by: 'op-alice', feedback: 'rather keep the report as it is; ask again with a rollback plan' });

    // The same page at phone width in the dark theme.
    const phone = await operator('op-bob', { viewport: PHONE_VIEWPORT, colorScheme: 'dark' });
    await phone.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Approvals/ }).click();
    await phone.getByRole('heading', { level: 1, name: 'Approvals' }).waitFor();
    await phone.getByText('Keyboard shortcuts (press ?)').waitFor();
    await suite.screenshot(phone, 'approvals-dark-phone');
  });
});
