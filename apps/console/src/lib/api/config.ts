/** Hooks configuration versions: the current one, the history, one version, and publishing. */
import {
  ConfigHistoryResponseSchema,
  ConfigVersionDetailSchema,
  PublishConfigResponseSchema,
  ValidateConfigResponseSchema,
  type ConfigVersionDetail,
  type ConfigVersionSummary,
  type PublishConfigResponse,
  type ValidateConfigResponse,
} from '@ahp/protocol';
import { callJson, isApiError, operatorUrl } from './client';

/** The version workers run now, or `null` while nothing was ever published. */
export async function fetchCurrentConfig(signal?: AbortSignal): Promise<ConfigVersionDetail | null> {
  try {
    return await callJson(operatorUrl('config'), ConfigVersionDetailSchema, signal ? { signal } : {});
  } catch (error) {
    if (isApiError(error, 'E_NOT_FOUND')) return null;
    throw error;
  }
}

/** Published versions, newest first, without their text. */
export async function fetchConfigHistory(signal?: AbortSignal): Promise<ConfigVersionSummary[]> {
  const { versions } = await callJson(operatorUrl('config/history', { limit: 100 }), ConfigHistoryResponseSchema, signal ? { signal } : {});
  return versions;
}

/** One version with its text. */
export function fetchConfigVersion(version: number, signal?: AbortSignal): Promise<ConfigVersionDetail> {
  return callJson(operatorUrl(`config/${version}`), ConfigVersionDetailSchema, signal ? { signal } : {});
}

/**
 * Validates and publishes `source`; an invalid text rejects with `E_INVALID_FRAME` and `details.issues`.
 * `rollbackOf` names the earlier version whose text `source` is (the gateway checks it and the audit trail records it).
 */
export function publishConfig(source: string, rollbackOf?: number): Promise<PublishConfigResponse> {
  return callJson(operatorUrl('config'), PublishConfigResponseSchema, { method: 'POST', body: rollbackOf === undefined ? { source } : { source, rollback_of: rollbackOf } });
}

/** Checks `source` as a publish would, storing nothing (any role): `{ valid, issues, warnings }`. */
export function validateConfig(source: string): Promise<ValidateConfigResponse> {
  return callJson(operatorUrl('config/validate'), ValidateConfigResponseSchema, { method: 'POST', body: { source } });
}
