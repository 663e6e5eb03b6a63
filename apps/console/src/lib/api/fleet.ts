/** The fleet and the control plane's health, as the operator API reports them. */
import { FleetResponseSchema, OperatorHealthResponseSchema, type FleetQuery, type FleetResponse, type OperatorHealthResponse } from '@ahp/protocol';
import { callJson, operatorUrl } from './client';

/** What a fleet page asks the gateway for (every field optional; the gateway's defaults apply). */
export type FleetPageQuery = Partial<FleetQuery>;

/** `GET /fleet`: a page of the agents matching `query`, with the whole fleet's counts and live gateways. */
export function fetchFleet(query: FleetPageQuery = {}, signal?: AbortSignal): Promise<FleetResponse> {
  return callJson(operatorUrl('fleet', { ...query }), FleetResponseSchema, signal ? { signal } : {});
}

/** `GET /health`: gateways, workers, queue depth, decision latency. */
export function fetchHealth(signal?: AbortSignal): Promise<OperatorHealthResponse> {
  return callJson(operatorUrl('health'), OperatorHealthResponseSchema, signal ? { signal } : {});
}
