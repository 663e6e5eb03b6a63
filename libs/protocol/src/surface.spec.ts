/**
 * The subpath entry points (`@ahp/protocol/wire`, `/operator`, `/config`): each is named in the
 * package's `exports`, they do not overlap, and the root still exports everything they do, so
 * code importing from the root keeps working whichever part it uses.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as root from './index.js';
import * as config from './surface/config.js';
import * as operator from './surface/operator.js';
import * as wire from './surface/wire.js';

const SURFACES = { wire, operator, config } as const;

describe('subpath entry points', () => {
  it('are each named in package.json exports, pointing at their build output', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { exports: Record<string, unknown> };
    for (const name of Object.keys(SURFACES)) {
      expect(pkg.exports[`./${name}`]).toEqual({ types: `./dist/surface/${name}.d.ts`, import: `./dist/surface/${name}.js` });
    }
  });

  it('are all exported by the root, binding for binding', () => {
    const exported: Record<string, unknown> = root;
    for (const surface of Object.values(SURFACES)) {
      const missing = Object.entries(surface).filter(([name, value]) => exported[name] !== value);
      expect(missing.map(([name]) => name)).toEqual([]);
    }
  });

  it('share no name, so each name has one home', () => {
    const homes = new Map<string, string[]>();
    for (const [surfaceName, surface] of Object.entries(SURFACES)) {
      for (const name of Object.keys(surface)) homes.set(name, [...(homes.get(name) ?? []), surfaceName]);
    }
    expect([...homes].filter(([, where]) => where.length > 1)).toEqual([]);
  });

  it('keep the frame parser on the wire and the operator API and configuration files off it', () => {
    expect(typeof wire.parseServerFrame).toBe('function');
    expect(Object.keys(wire)).not.toContain('OperatorIdentitySchema');
    expect(Object.keys(wire)).not.toContain('HooksConfigSchema');
    expect(Object.keys(operator)).toContain('OperatorIdentitySchema');
    expect(Object.keys(config)).toContain('HooksConfigSchema');
  });
});
