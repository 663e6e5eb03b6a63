/** The `EnforcementStore` (an agent's breakers, hold and escalation counters, for operators). */
export const ENFORCEMENT_STORE = Symbol('ENFORCEMENT_STORE');
