/**
 * Injection tokens of the values every module shares: the parsed configuration and the logger.
 * Symbols, so no provider can collide with them by accident.
 */

/** The {@link GatewayConfig} parsed once at start. */
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');

/** The root {@link JsonLogger}; services derive a child per component. */
export const LOGGER = Symbol('LOGGER');
