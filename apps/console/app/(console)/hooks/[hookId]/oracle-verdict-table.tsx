/** Every oracle's verdict on a hook, one row each: shared by the full drill-down and a failure-policy hook's late evaluation. */
import type { OracleVerdict } from '@ahp/protocol';
import { formatOracleMs } from '@/lib/view/hook-stages';

export function OracleVerdictTable({ oracles, caption }: { oracles: readonly OracleVerdict[]; caption: string }) {
  return (
    <div className="table-scroll">
      <table className="table table-cards" data-testid="oracles">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Oracle</th>
            <th scope="col">Outcome</th>
            <th scope="col">Signals</th>
            <th scope="col">Time</th>
            <th scope="col">Note</th>
          </tr>
        </thead>
        <tbody>
          {oracles.map((oracle, index) => (
            <tr key={`${oracle.oracle}-${index}`}>
              <th scope="row" data-label="Oracle">
                <code>{oracle.oracle}</code>
              </th>
              <td data-label="Outcome">
                <span className={`badge ${oracle.outcome === 'answered' ? 'badge-ok' : 'badge-warning'}`}>{oracle.outcome}</span>
                {oracle.skipped ? <span className="muted"> · skipped (fail open)</span> : null}
              </td>
              <td data-label="Signals">{oracle.signals}</td>
              <td data-label="Time">{formatOracleMs(oracle.duration_ms)}</td>
              <td data-label="Note">{oracle.message ?? <span className="muted">–</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
