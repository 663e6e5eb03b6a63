'use client';
/**
 * The signed-in operator, as the gateway named them when the page was loaded. The UI uses the
 * role only to hide what the API would refuse anyway (decide, publish); the API enforces it.
 */
import { createContext, useContext, type ReactNode } from 'react';
import { roleAllows, type OperatorIdentity, type OperatorRole } from '@ahp/protocol';

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
