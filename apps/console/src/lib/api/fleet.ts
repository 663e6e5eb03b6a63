/** The fleet and the control plane's health, as the operator API reports them. */
import { FleetResponseSchema, OperatorHealthResponseSchema, type FleetResponse, type OperatorHealthResponse } from '@ahp/protocol';
import { callJson, operatorUrl } from './client';

/** `GET /fleet`: every agent seen, with counts and live gateways. */
export function fetchFleet(signal?: AbortSignal): Promise<FleetResponse> {
  return callJson(operatorUrl('fleet'), FleetResponseSchema, signal ? { signal } : {});
}

/** `GET /health`: gateways, workers, queue depth, decision latency. */
export function fetchHealth(signal?: AbortSignal): Promise<OperatorHealthResponse> {
  return callJson(operatorUrl('health'), OperatorHealthResponseSchema, signal ? { signal } : {});
}
