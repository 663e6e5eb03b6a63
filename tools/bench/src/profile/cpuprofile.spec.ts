import { describe, expect, it } from 'vitest';
import { packageOf, summarizeCpuProfile, type CpuProfile } from './cpuprofile.js';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });

const PROFILE: CpuProfile = {
  startTime: 1_000_000,
  nodes: [
    { id: 1, callFrame: frame('(root)') },
    { id: 2, callFrame: frame('(idle)') },
    { id: 3, callFrame: frame('parse', 'file:///work/main/node_modules/zod/v4/core/parse.js', 9) },
    { id: 4, callFrame: frame('run', 'file:///work/main/libs/store/dist/lua.js', 24) },
    { id: 5, callFrame: frame('(garbage collector)') },
    { id: 6, callFrame: frame('writeGeneric', 'node:internal/stream_base_commons', 150) },
    { id: 7, callFrame: frame('sendCommand', 'file:///work/main/node_modules/@redis/client/dist/lib/client/index.js', 400) },
  ],
  // 1 ms per sample: 5 idle, 4 zod, 2 store, 1 GC, 1 node, 2 @redis/client.
  samples: [2, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 5, 6, 7, 7],
  timeDeltas: Array.from({ length: 15 }, () => 1000),
};

describe('CPU profile summary', () => {
  it('splits sampled time into idle and busy', () => {
    const summary = summarizeCpuProfile(PROFILE);
    expect(summary.sampledMs).toBe(15);
    expect(summary.busyMs).toBe(10);
  });

  it('ranks functions by self time, as shares of busy time, with their location', () => {
    const [first, second] = summarizeCpuProfile(PROFILE).topFunctions;
    expect(first).toEqual({ name: 'parse (zod parse.js:10)', selfMs: 4, percent: 40 });
    expect(second?.percent).toBe(20);
  });

  it('groups self time by package', () => {
    const byPackage = Object.fromEntries(summarizeCpuProfile(PROFILE).byPackage.map((entry) => [entry.name, entry.percent]));
    expect(byPackage).toEqual({ zod: 40, 'libs/store': 20, '@redis/client': 20, '(garbage collector)': 10, 'node (built-in)': 10 });
  });

  it('counts only the samples inside a window of the monotonic clock', () => {
    // Samples fall at 1,001,000 µs, 1,002,000 µs, …; the window holds samples 6 to 9 (zod, zod, zod, zod).
    const summary = summarizeCpuProfile(PROFILE, 15, { startUs: 1_005_500, endUs: 1_009_500 });
    expect(summary.sampledMs).toBe(4);
    expect(summary.byPackage).toEqual([{ name: 'zod', selfMs: 4, percent: 100 }]);
  });

  it('keeps only the top entries', () => {
    expect(summarizeCpuProfile(PROFILE, 2).byPackage).toHaveLength(2);
  });

  it('names packages: scoped npm packages whole, workspace projects by folder, V8 frames by name', () => {
    expect(packageOf('file:///x/node_modules/@nestjs/core/router.js', 'f')).toBe('@nestjs/core');
    expect(packageOf('file:///x/node_modules/a/node_modules/ws/lib/sender.js', 'f')).toBe('ws');
    expect(packageOf('file:///work/main/apps/gateway/dist/main.js', 'f')).toBe('apps/gateway');
    expect(packageOf('node:net', 'f')).toBe('node (built-in)');
    expect(packageOf('', '(program)')).toBe('(program)');
    expect(packageOf('', 'JSON.parse')).toBe('(native)');
  });
});
