/** A plan as a table of its steps: id, what, dependencies, status and the tools it expects. */
import type { Plan } from '@ahp/protocol';
import { planProgress } from '@/lib/view/timeline-merge';
import { visibleText } from '@/lib/view/visible-text';
import { VisibleText } from './visible-text';

export function PlanView({ plan, caption }: { plan: Plan; caption?: string }) {
  const progress = planProgress(plan.steps);
  return (
    <div className="plan">
      <p className="plan-title">
        <strong>
          <VisibleText text={plan.title} />
        </strong>{' '}
        <span className="muted">
          {progress.settled}/{progress.total} steps settled{progress.failed ? `, ${progress.failed} failed` : ''}
          {plan.verification_policy ? ` · verification: ${plan.verification_policy}` : ''}
        </span>
      </p>
      <div className="table-scroll">
        <table className="table table-compact table-cards">
          <caption className="visually-hidden">{caption ?? `Steps of the plan "${visibleText(plan.title)}"`}</caption>
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col">Description</th>
              <th scope="col">Depends on</th>
              <th scope="col">Status</th>
              <th scope="col">Expected tools</th>
            </tr>
          </thead>
          <tbody>
            {plan.steps.map((step) => (
              <tr key={step.id}>
                <td data-label="Step">
                  <code>
                    <VisibleText text={step.id} />
                  </code>
                </td>
                <td data-label="Description">
                  <VisibleText text={step.description} />
                </td>
                <td data-label="Depends on">
                  {step.dependencies.length ? (
                    step.dependencies.map((dep) => (
                      <code key={dep}>
                        <VisibleText text={dep} />
                      </code>
                    ))
                  ) : (
                    <span className="muted">none</span>
                  )}
                </td>
                <td data-label="Status">
                  <span className={`badge badge-step-${step.status}`}>{step.status.replace('_', ' ')}</span>
                </td>
                <td data-label="Expected tools">{step.tools_expected.length ? (
                    step.tools_expected.map((tool) => (
                      <code key={tool}>
                        <VisibleText text={tool} />
                      </code>
                    ))
                  ) : (
                    <span className="muted">none</span>
                  )}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
