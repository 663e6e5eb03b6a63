'use client';
/**
 * A line diff of two hooks.yaml texts, as a code review shows it: changed lines with three lines
 * of context, both line numbers, and a `+`/`−` sign and a hidden word on each changed line, so the
 * change never rests on colour alone.
 */
import { useMemo } from 'react';
import { hunks, lineDiff } from '@/lib/view/config-diff';

export function DiffView({ before, after, label, testId }: { before: string; after: string; label: string; testId?: string }) {
  const diff = useMemo(() => lineDiff(before, after), [before, after]);
  const rows = useMemo(() => hunks(diff), [diff]);
  if (rows.length === 0) {
    return (
      <p className="muted" data-testid={testId}>
        No difference: {label} is the same text.
      </p>
    );
  }
  return (
    <div className="diff" data-testid={testId}>
      <p className="diff-summary">
        <span className="diff-count-added">+{diff.added}</span> <span className="diff-count-removed">−{diff.removed}</span>{' '}
        <span className="muted">lines ({label})</span>
      </p>
      <div className="table-scroll">
        <table className="diff-table">
          <caption className="visually-hidden">{`Line changes: ${label}`}</caption>
          <thead className="visually-hidden">
            <tr>
              <th scope="col">Old line</th>
              <th scope="col">New line</th>
              <th scope="col">Change</th>
              <th scope="col">Text</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) =>
              'skipped' in row ? (
                <tr key={i} className="diff-skipped">
                  <td colSpan={4}>{`⋯ ${row.skipped} unchanged line${row.skipped === 1 ? '' : 's'}`}</td>
                </tr>
              ) : (
                <tr key={i} className={`diff-${row.kind}`} data-kind={row.kind}>
                  <td className="diff-number">{row.oldLine ?? ''}</td>
                  <td className="diff-number">{row.newLine ?? ''}</td>
                  <td className="diff-sign">
                    <span aria-hidden="true">{row.kind === 'added' ? '+' : row.kind === 'removed' ? '−' : ' '}</span>
                    <span className="visually-hidden">{row.kind === 'added' ? 'added' : row.kind === 'removed' ? 'removed' : 'unchanged'}</span>
                  </td>
                  <td>
                    <code>{row.text || ' '}</code>
                  </td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}
