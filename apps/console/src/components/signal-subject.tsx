/**
 * What a signal acted on, from its signal-log line: the tool and its (redacted, cut) input, the
 * prompt or issue, the message, suggestions and a control's changes before → after. All of it is
 * the agent's or an operator's text: rendered as text only (React escapes it), never as markup.
 */
import type { SignalSubject } from '@ahp/protocol';
import { subjectParts } from '@/lib/view/signal-subject';
import { VisibleText } from './visible-text';

/** `compact` (the signal table): no suggestions, changes inline. */
export function SignalSubjectView({ subject, compact = false }: { subject: SignalSubject | undefined; compact?: boolean }) {
  const parts = subjectParts(subject);
  if (parts === null) return null;
  return (
    <div className="signal-subject" data-testid="signal-subject">
      {parts.tool !== undefined ? (
        <p>
          <code data-testid="subject-tool">
            <VisibleText text={parts.tool} />
          </code>
          {parts.input !== undefined ? (
            <>
              {' '}
              <code className="subject-input" data-testid="subject-input">
                <VisibleText text={parts.input} />
              </code>
            </>
          ) : null}
        </p>
      ) : null}
      {parts.what !== undefined ? (
        <p className="muted">
          <VisibleText text={parts.what} />
        </p>
      ) : null}
      {parts.message !== undefined ? (
        <p data-testid="signal-message">
          “<VisibleText text={parts.message} />”
        </p>
      ) : null}
      {!compact && parts.suggestions.length > 0 ? (
        <ul className="compact-list" aria-label="Suggestions">
          {parts.suggestions.map((suggestion, i) => (
            <li key={i}>
              <VisibleText text={suggestion} />
            </li>
          ))}
          {parts.moreSuggestions > 0 ? <li className="muted">and {parts.moreSuggestions} more</li> : null}
        </ul>
      ) : null}
      {parts.changes.length > 0 ? (
        <ul className={compact ? 'subject-changes subject-changes-inline' : 'compact-list subject-changes'} aria-label="Changes">
          {parts.changes.map((change, i) => (
            <li key={i} data-testid="subject-change">
              <code>
                <VisibleText text={change.target} />
              </code>
              :{' '}
              <code>
                <VisibleText text={change.before} />
              </code>{' '}
              →{' '}
              <code>
                <VisibleText text={change.after} />
              </code>
            </li>
          ))}
          {parts.moreChanges > 0 ? <li className="muted">and {parts.moreChanges} more</li> : null}
        </ul>
      ) : null}
    </div>
  );
}
