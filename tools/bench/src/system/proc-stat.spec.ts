import { describe, expect, it } from 'vitest';
import { parseProcStat, parseSchedStat, readProcStat } from './proc-stat.js';

// A real line (node, pid 4242), with utime 1500, stime 250, cutime 30, cstime 7, rss 12345 pages.
const LINE =
  '4242 (node) S 4200 4242 4200 0 -1 4194304 9000 0 0 0 1500 250 30 7 20 0 11 0 123456 1234567890 12345 18446744073709551615 1 1 0 0 0 0 0 4096 134234626 0 0 0 17 1 0 0 0 0 0';

describe('/proc/<pid>/stat', () => {
  it('reads CPU ticks and resident pages', () => {
    expect(parseProcStat(LINE)).toEqual({ comm: 'node', utime: 1500, stime: 250, cutime: 30, cstime: 7, rssPages: 12345 });
  });

  it('counts fields from the last parenthesis, so a command name with spaces and ")" does not shift them', () => {
    const tricky = LINE.replace('(node)', '(my (weird) name)');
    expect(parseProcStat(tricky)).toMatchObject({ comm: 'my (weird) name', utime: 1500, stime: 250, rssPages: 12345 });
  });

  it('rejects text that is not a stat line', () => {
    expect(() => parseProcStat('hello')).toThrow();
    expect(() => parseProcStat('1 (x) S 1 2')).toThrow(/field/);
  });

  it('reads this very process', () => {
    const own = readProcStat(process.pid);
    expect(own?.rssPages).toBeGreaterThan(0);
    expect(readProcStat(2 ** 30)).toBeUndefined();
  });
});

describe('/proc/<pid>/schedstat', () => {
  it('reads time on a CPU and time waiting for one', () => {
    expect(parseSchedStat('177394325 24535186 494\n')).toEqual({ runNs: 177394325, waitNs: 24535186 });
    expect(() => parseSchedStat('')).toThrow();
  });
});
