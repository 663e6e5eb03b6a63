/**
 * The notice under a configuration action (set a shadow, publish or shadow a replayed candidate):
 * done, failed, or refused with the configuration's located issues. One component, so every
 * panel that acts on a configuration says it the same way.
 */
import { isApiError } from '../lib/api/client';
import { configIssues, type ConfigIssue } from '../lib/view/config-issues';
import { describeError } from './states';

/** What a configuration action came to. */
export type ActionOutcome = { kind: 'ok'; message: string } | { kind: 'invalid'; message: string; issues: ConfigIssue[] } | { kind: 'failed'; message: string };

/** Runs `action` (which resolves with what it did) and says what came of it; never rejects. */
export async function actionOutcome(action: () => Promise<string>): Promise<ActionOutcome> {
  try {
    return { kind: 'ok', message: await action() };
  } catch (error) {
    if (isApiError(error, 'E_INVALID_FRAME')) return { kind: 'invalid', message: error.error.message, issues: configIssues(error.error.details) };
    return { kind: 'failed', message: describeError(error instanceof Error ? error : new Error(String(error))) };
  }
}

/** `refused`: the lead of a refusal ("Not shadowed.", "Not applied."). Nothing before the first action. */
export function ActionOutcomeNotice({ outcome, refused }: { outcome: ActionOutcome | null; refused: string }) {
  if (outcome === null) return null;
  if (outcome.kind === 'ok') {
    return (
      <p className="notice notice-success" role="status">
        {outcome.message}
      </p>
    );
  }
  if (outcome.kind === 'failed') {
    return (
      <p className="notice notice-error" role="alert">
        {outcome.message}
      </p>
    );
  }
  return (
    <div className="notice notice-error" role="alert">
      <p>
        <strong>{refused}</strong> {outcome.message}
      </p>
      <ul className="issues">
        {outcome.issues.map((issue, i) => (
          <li key={i}>
            {issue.line > 0 ? `Line ${issue.line}: ` : ''}
            {issue.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
