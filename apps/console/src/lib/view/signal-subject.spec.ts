import { describe, expect, it } from 'vitest';
import { ABSENT_VALUE, subjectLine, subjectParts } from './signal-subject';

describe('subjectParts', () => {
  it('is null for an entry without a subject', () => {
    expect(subjectParts(undefined)).toBeNull();
    expect(subjectLine(undefined)).toBe('');
  });

  it('lays out a blocked tool call: tool, input, message', () => {
    const subject = { t: 'Bash', i: '{"command":"rm -rf /","api_key":"[redacted]"}', m: 'no rm -rf' };
    expect(subjectParts(subject)).toEqual({ tool: 'Bash', input: subject.i, message: 'no rm -rf', suggestions: [], moreSuggestions: 0, changes: [], moreChanges: 0 });
    expect(subjectLine(subject)).toBe('Bash {"command":"rm -rf /","api_key":"[redacted]"} · “no rm -rf”');
  });

  it('shows a control as before → after, a value the input lacked as (none), and counts what the log left out', () => {
    const parts = subjectParts({ c: [['command', '"rm -rf /"', '"rm -rf ./build"'], ['timeout', null, '30']], cn: 5, s: ['a'], sn: 4 });
    expect(parts?.changes).toEqual([
      { target: 'command', before: '"rm -rf /"', after: '"rm -rf ./build"' },
      { target: 'timeout', before: ABSENT_VALUE, after: '30' },
    ]);
    expect(parts).toMatchObject({ moreChanges: 3, moreSuggestions: 3, suggestions: ['a'] });
    expect(subjectLine({ c: [['timeout', null, '30']] })).toBe('timeout: (none) → 30');
  });

  it('writes the hidden characters of the one-line form as markers (it is a tooltip, and cannot mark them)', () => {
    expect(subjectLine({ t: 'Bash', i: `{"command":"ls${' '.repeat(40)}; rm\u202E -rf ~"}` })).toBe('Bash {"command":"ls⟦40 spaces⟧; rm⟦U+202E⟧ -rf ~"}');
  });
});
