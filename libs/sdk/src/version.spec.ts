import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SDK_NAME, SDK_VERSION } from './version.js';

describe('SDK_VERSION', () => {
  it('matches package.json, so hello announces the version that is installed', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
    expect({ name: SDK_NAME, version: SDK_VERSION }).toEqual({ name: pkg.name, version: pkg.version });
  });
});
