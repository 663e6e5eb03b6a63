import { describe, expect, it } from 'vitest';
import { operatorApiPath } from './proxy-paths';

describe('operatorApiPath', () => {
  it('maps the operator API routes the console uses', () => {
    expect(operatorApiPath('GET', ['fleet'])).toBe('/v1/operator/fleet');
    expect(operatorApiPath('GET', ['requests', 'req_042871'])).toBe('/v1/operator/requests/req_042871');
    expect(operatorApiPath('POST', ['requests', 'req_042871', 'decision'])).toBe('/v1/operator/requests/req_042871/decision');
    expect(operatorApiPath('GET', ['agents', 'alice', 'timeline'])).toBe('/v1/operator/agents/alice/timeline');
    expect(operatorApiPath('POST', ['agents', 'alice', 'signals'])).toBe('/v1/operator/agents/alice/signals');
    expect(operatorApiPath('GET', ['agents', 'alice', 'signals'])).toBeNull();
    expect(operatorApiPath('GET', ['agents', 'alice', 'enforcement'])).toBe('/v1/operator/agents/alice/enforcement');
    expect(operatorApiPath('POST', ['agents', 'alice', 'enforcement', 'reset'])).toBe('/v1/operator/agents/alice/enforcement/reset');
    expect(operatorApiPath('GET', ['agents', 'alice', 'enforcement', 'reset'])).toBeNull();
    expect(operatorApiPath('GET', ['config', 'history'])).toBe('/v1/operator/config/history');
    expect(operatorApiPath('GET', ['config', '3'])).toBe('/v1/operator/config/3');
    expect(operatorApiPath('POST', ['config'])).toBe('/v1/operator/config');
    expect(operatorApiPath('POST', ['config', 'validate'])).toBe('/v1/operator/config/validate');
    expect(operatorApiPath('POST', ['config', 'replay'])).toBe('/v1/operator/config/replay');
    expect(operatorApiPath('GET', ['config', 'replay', '5b0c2f4e-8f1a-4c59-9d57-2f3b1b1f3c11'])).toBe('/v1/operator/config/replay/5b0c2f4e-8f1a-4c59-9d57-2f3b1b1f3c11');
    expect(operatorApiPath('DELETE', ['config', 'replay', '5b0c2f4e-8f1a-4c59-9d57-2f3b1b1f3c11'])).toBe('/v1/operator/config/replay/5b0c2f4e-8f1a-4c59-9d57-2f3b1b1f3c11');
    expect(operatorApiPath('GET', ['signals', 'export'])).toBe('/v1/operator/signals/export');
    expect(operatorApiPath('GET', ['hooks', '0b9e6a47-5f1c-4c1a-9a39-2f4f2f3c7d10'])).toBe('/v1/operator/hooks/0b9e6a47-5f1c-4c1a-9a39-2f4f2f3c7d10');
    expect(operatorApiPath('POST', ['hooks', 'h1'])).toBeNull();
    expect(operatorApiPath('GET', ['grants'])).toBe('/v1/operator/grants');
    expect(operatorApiPath('GET', ['notifications', 'deliveries'])).toBe('/v1/operator/notifications/deliveries');
    expect(operatorApiPath('POST', ['notifications', 'dead-letters', '3f0c9a52-8d1e-8c44-9a0b-5e7f1c2d3b4a', 'replay'])).toBe(
      '/v1/operator/notifications/dead-letters/3f0c9a52-8d1e-8c44-9a0b-5e7f1c2d3b4a/replay',
    );
    expect(operatorApiPath('POST', ['links', 'inspect'])).toBe('/v1/operator/links/inspect');
    expect(operatorApiPath('POST', ['links', 'redeem'])).toBe('/v1/operator/links/redeem');
    expect(operatorApiPath('GET', ['push', 'vapid-key'])).toBe('/v1/operator/push/vapid-key');
    expect(operatorApiPath('POST', ['push', 'subscriptions'])).toBe('/v1/operator/push/subscriptions');
    expect(operatorApiPath('POST', ['push', 'subscriptions', 'remove'])).toBe('/v1/operator/push/subscriptions/remove');
    expect(operatorApiPath('DELETE', ['grants', 'grant_6b86b273ff34fce19d6b804eff5a3f57'])).toBe('/v1/operator/grants/grant_6b86b273ff34fce19d6b804eff5a3f57');
  });

  it('refuses a method the route does not have', () => {
    expect(operatorApiPath('POST', ['fleet'])).toBeNull();
    expect(operatorApiPath('GET', ['requests', 'req_1', 'decision'])).toBeNull();
    expect(operatorApiPath('DELETE', ['config'])).toBeNull();
    expect(operatorApiPath('DELETE', ['grants'])).toBeNull();
    expect(operatorApiPath('POST', ['notifications', 'deliveries'])).toBeNull();
    expect(operatorApiPath('GET', ['links', 'redeem'])).toBeNull();
    expect(operatorApiPath('DELETE', ['requests', 'req_1'])).toBeNull();
  });

  it('never forwards a path outside the operator API', () => {
    expect(operatorApiPath('GET', [])).toBeNull();
    expect(operatorApiPath('GET', ['..', 'healthz'])).toBeNull();
    expect(operatorApiPath('GET', ['agents', '..', 'timeline'])).toBeNull();
    expect(operatorApiPath('GET', ['agents', 'a/b', 'timeline'])).toBeNull();
    expect(operatorApiPath('GET', ['agents', 'a%2Fb', 'timeline'])).toBeNull();
    expect(operatorApiPath('GET', ['agents', 'http://evil.example', 'timeline'])).toBeNull();
    expect(operatorApiPath('GET', ['live'])).toBeNull();
    expect(operatorApiPath('GET', ['fleet', 'extra'])).toBeNull();
  });

  it('maps the shadow configuration routes, and no other method on them', () => {
    expect(operatorApiPath('GET', ['config', 'shadow'])).toBe('/v1/operator/config/shadow');
    expect(operatorApiPath('POST', ['config', 'shadow'])).toBe('/v1/operator/config/shadow');
    expect(operatorApiPath('POST', ['config', 'shadow', 'promote'])).toBe('/v1/operator/config/shadow/promote');
    expect(operatorApiPath('DELETE', ['config', 'shadow'])).toBe('/v1/operator/config/shadow');
    expect(operatorApiPath('GET', ['config', 'shadow', 'promote'])).toBeNull();
    expect(operatorApiPath('DELETE', ['config', 'shadow', 'promote'])).toBeNull();
  });
});
