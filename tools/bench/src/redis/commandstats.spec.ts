import { describe, expect, it } from 'vitest';
import { diffCommandStats, parseCommandStats, perOperation } from './commandstats.js';

const BEFORE = [
  '# Commandstats',
  'cmdstat_evalsha:calls=10,usec=500,usec_per_call=50.00,rejected_calls=0,failed_calls=0',
  'cmdstat_hset:calls=20,usec=40,usec_per_call=2.00,rejected_calls=0,failed_calls=0',
  'cmdstat_info:calls=3,usec=90,usec_per_call=30.00,rejected_calls=0,failed_calls=0',
  'cmdstat_client|setname:calls=2,usec=4,usec_per_call=2.00,rejected_calls=0,failed_calls=0',
  '',
].join('\r\n');

const AFTER = [
  '# Commandstats',
  'cmdstat_evalsha:calls=30,usec=1500,usec_per_call=50.00,rejected_calls=0,failed_calls=0',
  'cmdstat_hset:calls=60,usec=120,usec_per_call=2.00,rejected_calls=0,failed_calls=0',
  'cmdstat_info:calls=4,usec=120,usec_per_call=30.00,rejected_calls=0,failed_calls=0',
  'cmdstat_client|setname:calls=2,usec=4,usec_per_call=2.00,rejected_calls=0,failed_calls=0',
  'cmdstat_xadd:calls=20,usec=100,usec_per_call=5.00,rejected_calls=0,failed_calls=0',
  '',
].join('\r\n');

describe('INFO commandstats', () => {
  it('parses calls per command, subcommands included, ignoring the header', () => {
    const stats = parseCommandStats(BEFORE);
    expect([...stats]).toEqual([
      ['evalsha', 10],
      ['hset', 20],
      ['info', 3],
      ['client|setname', 2],
    ]);
  });

  it('diffs two readings, leaving out the measurement’s own INFO calls and unchanged commands', () => {
    const delta = diffCommandStats(parseCommandStats(BEFORE), parseCommandStats(AFTER));
    expect(delta.byCommand).toEqual([
      { command: 'hset', calls: 40 },
      { command: 'evalsha', calls: 20 },
      { command: 'xadd', calls: 20 },
    ]);
    expect(delta.total).toBe(80);
    expect(delta.scripts).toBe(20);
  });

  it('refuses a reading that went backwards (stats reset in between)', () => {
    expect(() => diffCommandStats(parseCommandStats(AFTER), parseCommandStats(BEFORE))).toThrow(/backwards/);
  });

  it('divides by the operations served', () => {
    const delta = diffCommandStats(parseCommandStats(BEFORE), parseCommandStats(AFTER));
    const per = perOperation(delta, 20);
    expect(per.perOperation).toBe(4);
    expect(per.scriptsPerOperation).toBe(1);
    expect(per.byCommand[0]).toEqual({ command: 'hset', perOperation: 2 });
    expect(() => perOperation(delta, 0)).toThrow(RangeError);
  });
});
