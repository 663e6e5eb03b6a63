import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeIssues, formatPath, issueDetails, reportIssues } from './issues.js';

function issuesOf(schema: z.ZodType, value: unknown): z.core.$ZodIssue[] {
  const result = schema.safeParse(value);
  if (result.success) throw new Error('expected a failure');
  return result.error.issues;
}

describe('formatPath', () => {
  it('writes paths as people do: dots for names, brackets for indexes and odd keys', () => {
    expect(formatPath(['hooks', 'pre-tool-use', 'oracles', 0, 'use'])).toBe('hooks.pre-tool-use.oracles[0].use');
    expect(formatPath(['context', 'a.b', '0', 1])).toBe('context["a.b"]["0"][1]');
    expect(formatPath(['agents', 1, 'id'])).toBe('agents[1].id');
    expect(formatPath([])).toBe('');
  });

  it('bounds what a hostile key can make it write', () => {
    expect(formatPath(['a'.repeat(500)]).length).toBeLessThanOrEqual(256);
    expect(formatPath(Array.from({ length: 200 }, () => 'key')).length).toBeLessThanOrEqual(256);
  });
});

describe('reportIssues', () => {
  const Schema = z.strictObject({ agents: z.array(z.strictObject({ id: z.string() })) });

  it('reports the key an unknown-key issue is about, under the prefix', () => {
    const reported = reportIssues(issuesOf(Schema, { agents: [{ id: 'a', extra: 1 }] }), { prefix: ['body'] });
    expect(reported).toEqual([{ path: 'body.agents[0].extra', message: expect.stringContaining('extra') }]);
  });

  it('lists at most ten by default and counts them all in the details', () => {
    const many = issuesOf(z.array(z.string()), Array.from({ length: 25 }, () => 1));
    expect(reportIssues(many)).toHaveLength(10);
    expect(issueDetails(many)).toMatchObject({ issue_count: 25, issues: expect.any(Array) });
    expect(issueDetails(many).issues[3]?.path).toBe('[3]');
  });

  it('keeps each message on one bounded line', () => {
    const [issue] = reportIssues([{ path: ['x'], message: `line one\nline two ${'y'.repeat(400)}` }]);
    expect(issue?.message).not.toContain('\n');
    expect(issue?.message.length).toBeLessThanOrEqual(256);
  });
});

describe('describeIssues', () => {
  it('summarises the first five on one line and says how many more there were', () => {
    const issues = Array.from({ length: 7 }, (_, i) => ({ path: ['a', i], message: `bad ${i}` }));
    expect(describeIssues(issues)).toBe('a[0]: bad 0; a[1]: bad 1; a[2]: bad 2; a[3]: bad 3; a[4]: bad 4 (and 2 more)');
    expect(describeIssues([{ path: [], message: 'top' }])).toBe('top');
  });
});
