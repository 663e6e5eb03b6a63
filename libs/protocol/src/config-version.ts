/**
 * Published versions of the hooks configuration (`hooks.yaml`) as the control plane keeps them:
 * every worker evaluates the version that is current, and every decision names the version that
 * produced it (`HookDecision.config_version`).
 */
import { z } from 'zod';
import { Sha256HexSchema } from './agent.js';
import { HooksConfigSchema } from './hooks-config.js';
import { ShortStringSchema, TimestampSchema } from './primitives.js';

/** Largest configuration text accepted, in characters (a hooks.yaml is a few KB). */
export const MAX_CONFIG_SOURCE_CHARS = 1024 * 1024;

/** A configuration version: 1, 2, 3… assigned without gaps at publication. */
export const ConfigVersionNumberSchema = z.int().positive().max(Number.MAX_SAFE_INTEGER);

/**
 * Who published a version, when, and the digest of its text: everything about a version but the
 * text and the parsed configuration. Not strict: history and listings stay readable when a later
 * release adds a field.
 */
export const ConfigVersionSummarySchema = z
  .object({
    version: ConfigVersionNumberSchema,
    /** SHA-256 of `source` (UTF-8), lowercase hex: publishing the current text again is a no-op. */
    digest: Sha256HexSchema,
    published_at: TimestampSchema,
    /** A person's or tool's name as given at publication (`ahp config publish --by`, the operator API). */
    published_by: ShortStringSchema,
  })
  .meta({ id: 'ConfigVersionSummary', description: 'One published hooks configuration version, without its text.' });
export type ConfigVersionSummary = z.infer<typeof ConfigVersionSummarySchema>;

/**
 * One published version of the hooks configuration, as stored: the YAML text as it was
 * published (for history, diff and display) and its parsed form, which workers compile.
 *
 * `config` is the parsed configuration ({@link HooksConfigSchema}, which fills in no defaults, so
 * a stored configuration parses again to the same value). What the schema cannot check (the
 * expressions, the oracles a name refers to) the workers' compiler checks.
 */
export const StoredConfigVersionSchema = z
  .strictObject({
    version: ConfigVersionNumberSchema,
    source: z.string().max(MAX_CONFIG_SOURCE_CHARS),
    digest: Sha256HexSchema,
    published_at: TimestampSchema,
    published_by: ShortStringSchema,
    config: HooksConfigSchema,
  })
  .meta({ id: 'StoredConfigVersion', description: 'A published hooks configuration version: text, digest, publisher and parsed config.' });
export type StoredConfigVersion = z.infer<typeof StoredConfigVersionSchema>;
