import { describe, expect, it } from 'vitest';
import { pidOfProfile } from './profile.js';

describe('profile file names', () => {
  it('yield the pid of the process that wrote them', () => {
    expect(pidOfProfile('CPU.20251122.014501.48213.0.001.cpuprofile')).toBe(48213);
    expect(pidOfProfile('Heap.20251122.014501.48213.0.001.heapprofile')).toBeUndefined();
  });
});
