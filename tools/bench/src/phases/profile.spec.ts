import { describe, expect, it } from 'vitest';
import { openLoopRate, pidOfProfile } from './profile.js';

describe('profile file names', () => {
  it('yield the pid of the process that wrote them', () => {
    expect(pidOfProfile('CPU.20251122.014501.48213.0.001.cpuprofile')).toBe(48213);
    expect(pidOfProfile('Heap.20251122.014501.48213.0.001.heapprofile')).toBeUndefined();
  });
});

describe('the open-loop profile window', () => {
  it('runs at the half-load rate of the throughput phase, or a quarter of flat out without it', () => {
    expect(openLoopRate(380, 2400)).toBe(380);
    expect(openLoopRate(undefined, 2400)).toBe(600);
    expect(openLoopRate(undefined, 12)).toBe(10);
  });
});
