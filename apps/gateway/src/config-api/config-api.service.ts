import { Inject, Injectable } from '@nestjs/common';
import { REDACTED_CREDENTIAL, redactHooksConfigCredentials, validateHooksConfig, type ConfigIssue, type ConfigWarning } from '@ahp/oracles';
import {
  MAX_CONFIG_SOURCE_BYTES,
  isFleetWide,
  makeError,
  type ConfigVersionDetail,
  type ConfigVersionSummary,
  type HooksConfig,
  type HooksConfigIssue,
  type HooksConfigWarning,
  type OperatorIdentity,
  type PublishConfigResponse,
  type StoredConfigVersion,
  type ValidateConfigResponse,
} from '@ahp/protocol';
import type { RedisConfigStore } from '@ahp/store';
import { LOGGER } from '../config/config.tokens.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { OperatorApiError } from '../operator-api/api-error.js';
import { CONFIG_STORE } from '../store/store.tokens.js';

/** Most issues one refused publish lists; the first ones are what a person fixes first anyway. */
const MAX_REPORTED_ISSUES = 50;

/**
 * Whether the operator reads the configuration's credentials (the notification channels' URLs):
 * only who may publish it, a fleet-wide admin. Everyone else reads them masked.
 */
export function readsConfigCredentials(operator: OperatorIdentity): boolean {
  return operator.role === 'admin' && isFleetWide(operator);
}

/** A configuration text as `operator` may read it: credentials masked unless {@link readsConfigCredentials}. */
export function configSourceFor(operator: OperatorIdentity, source: string): string {
  return readsConfigCredentials(operator) ? source : redactHooksConfigCredentials(source).source;
}

/** A stored version as the API shows it: the parsed `config` stays internal, the text is what people read. */
function detailOf(operator: OperatorIdentity, stored: StoredConfigVersion): ConfigVersionDetail {
  return {
    version: stored.version,
    digest: stored.digest,
    published_at: stored.published_at,
    published_by: stored.published_by,
    source: configSourceFor(operator, stored.source),
  };
}

/**
 * Reads and publishes hooks configuration versions for operators. Publishing validates the text
 * completely (YAML, schema, expressions, oracle names) before anything is stored, so a version
 * that workers would refuse never becomes current.
 */
@Injectable()
export class ConfigApiService {
  private readonly log: JsonLogger;

  constructor(
    @Inject(CONFIG_STORE) private readonly store: RedisConfigStore,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'config-api' });
  }

  /** The current version as `operator` may read it, or a 404 when nothing was ever published. */
  async current(operator: OperatorIdentity): Promise<ConfigVersionDetail> {
    const stored = await this.store.current();
    if (stored === null) throw new OperatorApiError(makeError('E_NOT_FOUND', 'no hooks configuration has been published yet'));
    return detailOf(operator, stored);
  }

  /** One version as `operator` may read it, or a 404. */
  async get(operator: OperatorIdentity, version: number): Promise<ConfigVersionDetail> {
    const stored = await this.store.get(version);
    if (stored === null) throw new OperatorApiError(makeError('E_NOT_FOUND', `no hooks configuration version ${version}`, { version }));
    return detailOf(operator, stored);
  }

  /** The newest `limit` versions, newest first. */
  history(limit: number): Promise<ConfigVersionSummary[]> {
    return this.store.history(limit);
  }

  /**
   * Validates `source` without publishing it: always an answer (never a 400 for a configuration
   * that does not validate), with its issues or, for a valid text, its lint warnings. 413 for a
   * text over {@link MAX_CONFIG_SOURCE_BYTES}, as for a publish.
   */
  validate(source: string): ValidateConfigResponse {
    checkSize(source);
    const checked = validateHooksConfig(source);
    if (!checked.ok) return { valid: false, issues: checked.issues.slice(0, MAX_REPORTED_ISSUES).map(issueOf), warnings: [] };
    return { valid: true, issues: [], warnings: checked.warnings.slice(0, MAX_REPORTED_ISSUES).map(warningOf) };
  }

  /**
   * Validates `source` and publishes it as `operator`. Throws 413 for a text over
   * {@link MAX_CONFIG_SOURCE_BYTES} and 400 `E_INVALID_FRAME` listing every issue with its line
   * and column; the store records who published and when, and the log line keeps an audit trail.
   * Lint warnings do not stop a publish: they come back in the answer's `warnings`.
   */
  async publish(operator: OperatorIdentity, source: string, now: number, rollbackOf?: number): Promise<PublishConfigResponse> {
    // A rollback must carry exactly the text of the version it names (404 when there is none),
    // so the audit trail's `rollback_of` never names a version whose text was not restored.
    if (rollbackOf !== undefined) {
      const earlier = await this.store.get(rollbackOf);
      if (earlier === null) throw new OperatorApiError(makeError('E_NOT_FOUND', `no hooks configuration version ${rollbackOf}`, { version: rollbackOf }));
      if (earlier.source !== source) {
        throw new OperatorApiError(makeError('E_INVALID_FRAME', `the text is not that of version ${rollbackOf}`, { rollback_of: rollbackOf }));
      }
    }
    const checked = this.validateForPublish(operator, source);
    const result = await this.store.publish({ source, config: checked.config, publishedBy: operator.id, now });
    this.log.info(
      { operator: operator.id, role: operator.role, configVersion: result.version, unchanged: result.unchanged, warnings: checked.warnings.length, rollbackOf },
      'hooks configuration published',
    );
    return { ...result, warnings: checked.warnings };
  }

  /**
   * The checks of a publish, for anything that stores a configuration workers will compile (a
   * publish, a shadow): 413 over {@link MAX_CONFIG_SOURCE_BYTES}, 400 `E_INVALID_FRAME` with the
   * located issues; otherwise the parsed configuration and its lint warnings.
   */
  validateForPublish(operator: OperatorIdentity, source: string): { config: HooksConfig; warnings: HooksConfigWarning[] } {
    checkSize(source);
    // A text read with its credentials masked, sent back: publishing it would replace each
    // channel's address with the marker. Said by name rather than as a URL issue.
    if (source.includes(REDACTED_CREDENTIAL)) {
      throw new OperatorApiError(
        makeError('E_INVALID_FRAME', `the text contains "${REDACTED_CREDENTIAL}" where a credential was masked; write the real value (a fleet-wide admin reads it unmasked)`, {
          marker: REDACTED_CREDENTIAL,
        }),
      );
    }
    const checked = validateHooksConfig(source);
    if (!checked.ok) {
      const issues = checked.issues.slice(0, MAX_REPORTED_ISSUES).map(issueOf);
      this.log.info({ operator: operator.id, issues: checked.issues.length }, 'hooks configuration refused');
      // Same code and status (400) as any other invalid input, so clients need one error path;
      // `details.issues` carries the positions the console marks in the editor.
      throw new OperatorApiError(
        makeError('E_INVALID_FRAME', `the hooks configuration has ${checked.issues.length} problem(s)`, { issue_count: checked.issues.length, issues }),
      );
    }
    return { config: checked.config, warnings: checked.warnings.slice(0, MAX_REPORTED_ISSUES).map(warningOf) };
  }
}

/** 413 for a text over {@link MAX_CONFIG_SOURCE_BYTES}, before anything parses it. */
function checkSize(source: string): void {
  const bytes = Buffer.byteLength(source, 'utf8');
  if (bytes > MAX_CONFIG_SOURCE_BYTES) {
    throw new OperatorApiError(
      makeError('E_FRAME_TOO_LARGE', `the configuration is ${bytes} bytes; at most ${MAX_CONFIG_SOURCE_BYTES} are accepted`, { bytes, max_bytes: MAX_CONFIG_SOURCE_BYTES }),
    );
  }
}

/** Only the documented fields leave the gateway. */
function issueOf({ line, column, path, message }: ConfigIssue): HooksConfigIssue {
  return { line, column, path, message };
}

function warningOf({ line, column, path, message, kind, subject }: ConfigWarning): HooksConfigWarning {
  return { line, column, path, message, kind, subject };
}
