/** The human-readable summary of a {@link ChaosReport}. */
import { describeTrackCapabilities } from './capabilities.js';
import { FAULT_KINDS } from './fault-plan.js';
import type { ChaosReport } from './report.js';

function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds >= 60 ? `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s` : `${seconds}s`;
}

function row(label: string, value: string | number, note = ''): string {
  return `  ${label.padEnd(28)}${String(value).padStart(9)}${note ? `   ${note}` : ''}`;
}

function codes(counts: Readonly<Record<string, number>>): string {
  return Object.entries(counts)
    .map(([code, count]) => `${code} ${count}`)
    .join(', ');
}

function sum(counts: Readonly<Record<string, number>>): number {
  return Object.values(counts).reduce((total, count) => total + count, 0);
}

/** The approvals and inbox sections, or the line saying they are not available. */
function trackLines(report: ChaosReport): string[] {
  const lines = [describeTrackCapabilities(report.tracks)];
  const { approvals, inbox } = report;
  if (approvals !== undefined) {
    lines.push(
      '',
      '  Plan approvals (planners → lead)',
      row('submitted', approvals.submitted),
      row('approved', approvals.approved, `latency ms p50 ${approvals.latencyMs.p50}, p99 ${approvals.latencyMs.p99}, max ${approvals.latencyMs.max}`),
      row('typed errors', sum(approvals.failed), codes(approvals.failed)),
      row('lost', approvals.lost + approvals.pending, `${approvals.lostAfterFailedAnswer} after the lead's answer failed (KI-2, fixed: must stay 0)`),
      row('duplicates delivered', approvals.duplicateReviews + approvals.duplicateSettles),
      row('shown again (answer failed)', approvals.reviewsAfterFailedAnswer, "the SDK's retry; answers are idempotent"),
      row('wrong outcomes', approvals.wrong),
    );
  }
  if (inbox !== undefined) {
    lines.push(
      '',
      '  Inbox messages (agent → agent)',
      row('sent / accepted', `${inbox.sent}/${inbox.accepted}`),
      row('received', inbox.received, `latency ms p50 ${inbox.latencyMs.p50}, p99 ${inbox.latencyMs.p99}, max ${inbox.latencyMs.max}`),
      row('typed errors', sum(inbox.failed), codes(inbox.failed)),
      row('lost', inbox.lost),
      row(
        'duplicates delivered',
        inbox.duplicatesDelivered,
        `same id ${inbox.duplicatesSameId}, stored twice ${inbox.duplicatesNewId} (${inbox.storedTwiceAfterResend} after a mid-send reconnect: KI-1, fixed)`,
      ),
      row('received after a failed send', inbox.receivedAfterFailure, 'stored before the error reached the sender'),
      row('misdelivered / unknown', `${inbox.misdelivered}/${inbox.unknown}`),
    );
  }
  return lines;
}

/** The summary table printed at the end of a run. */
export function formatReport(report: ChaosReport): string {
  const { settings: s, hooks, evaluations, serviceLogs, storeCheck, agents } = report;
  const lines: string[] = [];
  lines.push(
    `AHP chaos run — seed ${s.seed} — ${duration(report.chaosMs)} of faults on ${s.gateways} gateways, ${s.workers} workers, ${s.agents} agents × ${s.lanes} lanes`,
    `BullMQ lock ${s.bullmq.lockMs} ms, stalled check every ${s.bullmq.stalledIntervalMs} ms, max stalled ${s.bullmq.maxStalled}; ` +
      `hook deadline ${s.gatewayDeadlineMs} ms at the gateway, ${s.agentDeadlineMs} ms at the agent`,
    `machine: ${report.machine.cpus} CPUs, load ${report.machine.loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ` +
      `${report.machine.loadAfter.map((l) => l.toFixed(2)).join(' ')} after`,
    '',
    `  ${'Faults injected'.padEnd(28)}${'count'.padStart(9)}   recovery ms: min / p50 / max`,
  );
  for (const kind of FAULT_KINDS) {
    const r = report.recovery.byKind[kind];
    const count = report.faults.byKind[kind];
    const times = r.count > 0 ? `${r.min} / ${r.p50} / ${r.max}` : '-';
    const notes = [
      r.unrecovered > 0 ? `${r.unrecovered} not recovered by the end` : '',
      r.unmeasured > 0 ? `${r.unmeasured} hit only agents without hooks` : '',
    ].filter(Boolean);
    lines.push(row(kind, count, count > 0 ? `${times}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}` : ''));
  }
  lines.push(row('total', report.faults.total), '');

  lines.push(
    '  Hooks (at the agents)',
    row('sent', hooks.sent),
    row('decided', hooks.decided, `oracles ${hooks.decidedByOracles}, failure policy ${hooks.decidedByPolicy}`),
    row('typed errors', sum(hooks.errors), codes(hooks.errors)),
    row('lost', hooks.lost),
    row('duplicates delivered', hooks.duplicatesDelivered),
    row('hung', hooks.hung + hooks.pending),
    row('wrong decisions', hooks.wrong),
    row('latency ms (decided)', '', `p50 ${hooks.latencyMs.p50}, p90 ${hooks.latencyMs.p90}, p99 ${hooks.latencyMs.p99}, max ${hooks.latencyMs.max}`),
    '',
    '  Wire and store',
    row('decision frames', hooks.wire.decisionFrames),
    row('same-socket duplicates', hooks.wire.sameSocketDuplicates),
    row('answered on several sockets', hooks.wire.answeredOnSeveralSockets, 're-sent after a reconnect; the SDK kept the first'),
    row('conflicting decisions', hooks.wire.conflicting),
    row('stored decision checked', storeCheck.checked, `mismatched ${storeCheck.mismatched}, missing ${storeCheck.missing}`),
    '',
    '  Evaluations (at the workers)',
    row('evaluations started', evaluations.evaluations, `${evaluations.hooksEvaluated} hooks`),
    row('duplicate evaluations', evaluations.duplicateEvaluations, `${evaluations.hooksEvaluatedMoreThanOnce} hooks re-run, at most ${evaluations.mostEvaluationsOfOneHook} times`),
    row('re-run without worker fault', evaluations.reEvaluatedWithoutWorkerFault, 'lock lost by a live worker, or a retried attempt'),
    row('decide: first / duplicate', `${serviceLogs.decidedFirst}/${serviceLogs.decidedDuplicate}`, 'duplicates are never delivered'),
    row('failed job attempts', serviceLogs.failedAttempts),
    row('gateway deadlines reached', serviceLogs.deadlinesReached),
    '',
    '  Agents',
    row('sockets opened', agents.sockets),
    row('sessions resumed / new', `${agents.sessionsResumed}/${agents.sessionsReplaced}`),
    row('connections ended', agents.ended.length),
    row('unexpected process exits', report.unexpectedExits.length),
    '',
    ...trackLines(report),
    '',
    ...(report.knownIssues.length > 0 ? ['KNOWN ISSUES (not new findings):', ...report.knownIssues.map((issue) => `  - ${issue}`), ''] : []),
    !report.ok
      ? `FAIL:\n${report.failures.map((failure) => `  - ${failure}`).join('\n')}`
      : report.knownIssues.length > 0
        ? 'NO NEW FINDING: every broken promise is a known issue (above)'
        : 'PASS: lost = 0, duplicates = 0, hung = 0',
  );
  return lines.join('\n');
}
