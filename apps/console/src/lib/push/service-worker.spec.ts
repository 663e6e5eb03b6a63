/**
 * public/sw.js in a fake worker scope (node:vm): what its push handler shows and which page its
 * tap handler opens. The browser test (e2e/console/decide-link.int.spec.ts) runs it in Chromium
 * for the approve action; here are the other branches: reject, a plain tap, a message without
 * links, a link to another origin, an unreadable message.
 */
import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';

const SOURCE = readFileSync(new URL('../../../public/sw.js', import.meta.url), 'utf8');
const ORIGIN = 'https://ahp.example.com';

interface Shown {
  title: string;
  options: { body: string; tag: string; data: { url: string; approve?: string; reject?: string }; actions: { action: string; title: string }[] };
}

type Listener = (event: unknown) => void;

function loadWorker() {
  const listeners = new Map<string, Listener>();
  const shown: Shown[] = [];
  const opened: string[] = [];
  const scope = {
    location: { origin: ORIGIN },
    addEventListener: (type: string, listener: Listener) => listeners.set(type, listener),
    skipWaiting: () => Promise.resolve(),
    registration: {
      showNotification: (title: string, options: Shown['options']) => {
        shown.push({ title, options });
        return Promise.resolve();
      },
    },
    clients: {
      claim: () => Promise.resolve(),
      openWindow: (url: string) => {
        opened.push(url);
        return Promise.resolve(null);
      },
    },
  };
  runInNewContext(SOURCE, { self: scope, URL });
  const fire = async (type: string, event: object) => {
    const waits: Promise<unknown>[] = [];
    listeners.get(type)?.({ ...event, waitUntil: (promise: Promise<unknown>) => waits.push(promise) });
    await Promise.all(waits);
  };
  return {
    shown,
    opened,
    push: (data: unknown) => fire('push', { data: { json: () => (typeof data === 'string' ? JSON.parse(data) : data) } }),
    tap: async (notification: Shown, action = '') => {
      let closed = false;
      await fire('notificationclick', { action, notification: { data: notification.options.data, close: () => (closed = true) } });
      return closed;
    },
  };
}

const payload = {
  title: 'A tool call waits for approval: mobi (mobile)',
  body: 'Approve a call of tool deploy.',
  request_id: 'req_1',
  url: `${ORIGIN}/approvals`,
  links: { approve: `${ORIGIN}/decide#v1.a.b`, reject: `${ORIGIN}/decide#v1.c.d`, expires_at: '2026-11-26T05:15:00.000Z' },
};

describe('the console service worker', () => {
  it('shows a push message with Approve and Reject, tagged with its request', async () => {
    const worker = loadWorker();
    await worker.push(payload);
    expect(worker.shown).toHaveLength(1);
    const [shown] = worker.shown;
    expect(shown!.title).toBe(payload.title);
    expect(shown!.options).toMatchObject({ body: payload.body, tag: 'req_1', actions: [{ action: 'approve', title: 'Approve' }, { action: 'reject', title: 'Reject' }] });
  });

  it('opens the approve link, the reject link, or the approvals page for a plain tap, and closes the notification', async () => {
    const worker = loadWorker();
    await worker.push(payload);
    const [shown] = worker.shown;
    expect(await worker.tap(shown!, 'approve')).toBe(true);
    expect(await worker.tap(shown!, 'reject')).toBe(true);
    expect(await worker.tap(shown!)).toBe(true);
    expect(worker.opened).toEqual([payload.links.approve, payload.links.reject, payload.url]);
  });

  it('without links: no actions, and a tap opens the approvals page', async () => {
    const worker = loadWorker();
    await worker.push({ title: 'A plan waits', body: 'x', request_id: 'req_2' });
    const [shown] = worker.shown;
    expect(shown!.options.actions).toEqual([]);
    await worker.tap(shown!, 'approve');
    expect(worker.opened).toEqual([`${ORIGIN}/approvals`]);
  });

  it('never opens another origin: a foreign link falls back to the approvals page', async () => {
    const worker = loadWorker();
    await worker.push({ ...payload, links: { ...payload.links, approve: 'https://evil.example/decide#v1.a.b' } });
    await worker.tap(worker.shown[0]!, 'approve');
    expect(worker.opened).toEqual([`${ORIGIN}/approvals`]);
  });

  it('an unreadable message still shows a generic notification', async () => {
    const worker = loadWorker();
    await worker.push('not json');
    expect(worker.shown[0]).toMatchObject({ title: 'A request waits for a person', options: { actions: [], tag: 'ahp', data: { url: '/approvals' } } });
  });
});
