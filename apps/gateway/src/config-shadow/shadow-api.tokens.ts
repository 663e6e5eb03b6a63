/** `ShadowConfigStore` of `@ahp/store` (the shadow hooks configuration and its counters). */
export const SHADOW_CONFIG_STORE = Symbol('SHADOW_CONFIG_STORE');
