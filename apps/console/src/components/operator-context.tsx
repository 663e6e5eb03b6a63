'use client';
/**
 * The signed-in operator, as the gateway named them when the page was loaded. The UI uses the
 * role and the token's scope only to hide what the API would refuse anyway (decide, publish); the
 * API enforces both. What a scoped token may not see never reaches the console: the gateway
 * leaves it out of every answer and of the live feed.
 */
import { createContext, useContext, type ReactNode } from 'react';
import { isFleetWide, roleAllows, scopeCoversRequestType, type OperatorIdentity, type OperatorRole, type RequestType } from '@ahp/protocol';

const OperatorContext = createContext<OperatorIdentity | null>(null);

export function OperatorProvider({ operator, children }: { operator: OperatorIdentity | null; children: ReactNode }) {
  return <OperatorContext.Provider value={operator}>{children}</OperatorContext.Provider>;
}

/** The operator, or `null` while the gateway could not be asked. */
export function useOperator(): OperatorIdentity | null {
  return useContext(OperatorContext);
}

/** Whether the operator's role includes `role` (false while unknown). */
export function useRoleAllows(role: OperatorRole): boolean {
  const operator = useOperator();
  return operator !== null && roleAllows(operator.role, role);
}

/**
 * Whether the operator may decide a request of this type addressed to operators: the approver
 * role, and a scope that names the type (or none). Its team is already in scope, or the gateway
 * would not have listed it.
 */
export function mayDecide(operator: OperatorIdentity | null, type: RequestType): boolean {
  return operator !== null && roleAllows(operator.role, 'approver') && scopeCoversRequestType(operator, type);
}

/** Whether the operator may publish hooks.yaml: an admin with a fleet-wide token (false while unknown). */
export function useMayPublish(): boolean {
  const operator = useOperator();
  return operator !== null && roleAllows(operator.role, 'admin') && isFleetWide(operator);
}

/** How the top bar names a scoped token: "teams red, green · plan_approval"; undefined when fleet-wide. */
export function scopeLabel(operator: OperatorIdentity): string | undefined {
  const scope = operator.scope;
  if (scope === undefined) return undefined;
  const parts = [scope.teams === undefined ? undefined : `team${scope.teams.length === 1 ? '' : 's'} ${scope.teams.join(', ')}`, scope.request_types?.join(', ')];
  return parts.filter((part) => part !== undefined).join(' · ');
}
