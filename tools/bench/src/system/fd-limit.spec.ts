import { describe, expect, it } from 'vitest';
import { currentFileLimit, parseOpenFilesLimit } from './fd-limit.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            20000                40000                files
Max locked memory         8388608              8388608              bytes`;

describe('open-files limit', () => {
  it('reads the soft and hard limit from /proc/<pid>/limits', () => {
    expect(parseOpenFilesLimit(LIMITS)).toEqual({ soft: 20000, hard: 40000 });
  });

  it('reads unlimited as infinite', () => {
    expect(parseOpenFilesLimit('Max open files            unlimited            unlimited            files')).toEqual({
      soft: Number.POSITIVE_INFINITY,
      hard: Number.POSITIVE_INFINITY,
    });
  });

  it('fails on a file without the row', () => {
    expect(() => parseOpenFilesLimit('Max cpu time  unlimited  unlimited  seconds')).toThrow(/Max open files/);
  });

  it('reads this process', () => {
    expect(currentFileLimit().soft).toBeGreaterThan(0);
  });
});
