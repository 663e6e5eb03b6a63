import { describe, expect, it } from 'vitest';
import { HooksConfigSchema } from './hooks-config.js';
import { NotificationsConfigSchema, routeNotification, type NotificationsConfig } from './notifications.js';

const CONFIG: NotificationsConfig = {
  channels: {
    'on-call': { type: 'webhook', url: 'https://hooks.example.com/ahp', secret_env: 'AHP_WEBHOOK_SECRET' },
    chat: { type: 'slack', url: 'https://hooks.slack.example/services/T0/B0/X' },
    payments: { type: 'webhook', url: 'http://10.0.0.5:8080/in', secret_env: 'PAYMENTS_SECRET' },
  },
  routes: [
    { types: ['tool_approval', 'intervention'], channels: ['on-call', 'chat'] },
    { teams: ['payments'], channels: ['payments', 'chat'] },
    { types: ['shutdown'], teams: ['*'], channels: ['chat'] },
  ],
};

function issues(value: unknown): { path: string; message: string }[] {
  const result = NotificationsConfigSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
}

describe('NotificationsConfigSchema', () => {
  it('accepts webhook and slack channels with routes', () => {
    expect(NotificationsConfigSchema.parse(CONFIG)).toEqual(CONFIG);
  });

  it('is part of the hooks configuration', () => {
    const parsed = HooksConfigSchema.parse({ version: 1, hooks: {}, notifications: CONFIG });
    expect(parsed.notifications).toEqual(CONFIG);
    expect(HooksConfigSchema.safeParse({ hooks: {}, notifications: { ...CONFIG, escalate: true } }).success).toBe(false);
  });

  it('refuses unknown fields, in channels and routes too', () => {
    expect(issues({ ...CONFIG, extra: 1 })).toEqual([expect.objectContaining({ message: expect.stringContaining('extra') })]);
    expect(issues({ channels: { a: { type: 'webhook', url: 'https://x.example', secret_env: 'S', secret: 'hunter2' } }, routes: [] })).not.toEqual([]);
    expect(issues({ channels: {}, routes: [{ channels: [], when: 'always' }] })).not.toEqual([]);
  });

  it('takes only http(s) URLs without credentials', () => {
    for (const url of ['file:///etc/passwd', 'ftp://x.example/', 'javascript:alert(1)', 'https://user:pw@x.example/', 'not a url', '/relative']) {
      expect(issues({ channels: { a: { type: 'slack', url } }, routes: [] }), url).toEqual([expect.objectContaining({ path: 'channels.a.url' })]);
    }
  });

  it('wants the secret as the name of an environment variable, and a webhook to have one', () => {
    expect(issues({ channels: { a: { type: 'webhook', url: 'https://x.example' } }, routes: [] })).toEqual([expect.objectContaining({ path: 'channels.a.secret_env' })]);
    expect(issues({ channels: { a: { type: 'webhook', url: 'https://x.example', secret_env: 's3cr3t-value!' } }, routes: [] })).toEqual([
      expect.objectContaining({ path: 'channels.a.secret_env' }),
    ]);
  });

  it('refuses unknown channel types, bad channel names and routes to undefined channels', () => {
    expect(issues({ channels: { a: { type: 'email', to: 'x@y' } }, routes: [] })).not.toEqual([]);
    expect(issues({ channels: { 'On Call': { type: 'slack', url: 'https://x.example' } }, routes: [] })).toEqual([
      expect.objectContaining({ path: 'channels.On Call' }),
    ]);
    expect(issues({ channels: { a: { type: 'slack', url: 'https://x.example' } }, routes: [{ channels: ['a', 'b'] }] })).toEqual([
      { path: 'routes.0.channels.1', message: 'unknown channel "b" (defined: a)' },
    ]);
    expect(issues({ channels: {}, routes: [{ types: ['coffee'], channels: ['a'] }] })).toContainEqual(expect.objectContaining({ path: 'routes.0.types.0' }));
  });
});

describe('routeNotification', () => {
  const names = (type: Parameters<typeof routeNotification>[1]['type'], team: string | undefined) =>
    routeNotification(CONFIG, { type, team }).map((channel) => channel.name);

  it('sends to every channel of every matching route, each once', () => {
    expect(names('tool_approval', 'payments')).toEqual(['on-call', 'chat', 'payments']);
    expect(names('tool_approval', 'web')).toEqual(['on-call', 'chat']);
  });

  it('matches teams: a listed team, "*" for any (also none), no list for any', () => {
    expect(names('plan_approval', 'payments')).toEqual(['payments', 'chat']);
    expect(names('plan_approval', 'web')).toEqual([]);
    expect(names('plan_approval', undefined)).toEqual([]);
    expect(names('shutdown', undefined)).toEqual(['chat']);
    expect(names('intervention', undefined)).toEqual(['on-call', 'chat']);
  });

  it('gives the channel definitions, and nothing without a configuration', () => {
    expect(routeNotification(CONFIG, { type: 'shutdown', team: 'x' })).toEqual([{ name: 'chat', channel: CONFIG.channels['chat'] }]);
    expect(routeNotification(undefined, { type: 'shutdown', team: 'x' })).toEqual([]);
  });
});
