/**
 * `permission-check` as hooks.yaml configures it: the deny / allow / rewrite rules of
 * {@link createPermissionCheck} written in YAML, optionally with the default rules, plus
 * ordinary expression rules over `tool.name` and `tool.input`.
 */
import { SignalTypeSchema } from '@ahp/protocol';
import { z } from 'zod';
import { DEFAULT_PERMISSION_RULES } from '../defaults.js';
import { OracleSetupError } from '../errors.js';
import type { Oracle, OracleVerdict } from '../oracle.js';
import { PATTERN_FLAGS, PatternError, compileLinearPattern } from '../pattern/linear-pattern.js';
import type { PatternSpec } from '../pattern/linear-pattern.js';
import { createPermissionCheck } from '../permission-check.js';
import type { PermissionDenyRule, PermissionMatch, PermissionRewriteRule } from '../permission-check.js';
import { defineBuiltin } from './types.js';

/** Longest pattern accepted. */
export const MAX_PATTERN_CHARS = 1024;

/**
 * A pattern (RE2 syntax: linear-pattern.ts): a source, or `{ regex, flags }` with flags among
 * `i m s u`. For `tool` it must match the whole tool name; for `input` it is searched anywhere.
 * Lookaround and backreferences are refused here, at the pattern's line.
 */
const PatternSchema = z
  .union([
    z.string().min(1).max(MAX_PATTERN_CHARS),
    z.strictObject({ regex: z.string().min(1).max(MAX_PATTERN_CHARS), flags: z.string().max(4).refine((flags) => PATTERN_FLAGS.test(flags) && new Set(flags).size === flags.length, 'must be some of i, m, s, u (each once)').optional() }),
  ])
  .superRefine((value, ctx) => {
    const source = typeof value === 'string' ? value : value.regex;
    const flags = typeof value === 'string' ? '' : (value.flags ?? '');
    try {
      compileLinearPattern(source, flags);
    } catch (error) {
      if (!(error instanceof PatternError)) throw error;
      ctx.addIssue({ code: 'custom', message: error.message });
    }
  });
type Pattern = z.infer<typeof PatternSchema>;

const Text = z.string().trim().min(1).max(16 * 1024);

const matchFields = {
  name: z.string().min(1).max(128).optional(),
  type: SignalTypeSchema.optional(),
  tool: PatternSchema.optional(),
  input: PatternSchema.optional(),
  field: z.string().min(1).max(256).optional(),
};

function needsPattern(rule: { tool?: unknown; input?: unknown }, ctx: z.RefinementCtx): void {
  if (rule.tool === undefined && rule.input === undefined) {
    ctx.addIssue({ code: 'custom', message: 'needs "tool", "input" or both; to match every tool, say tool: ".*"' });
  }
}

const MatchSchema = z.strictObject(matchFields).superRefine(needsPattern);
const DenySchema = z
  .strictObject({
    ...matchFields,
    reason: Text,
    resolution_path: z.array(Text).max(50).optional(),
    resolvable: z.boolean().optional(),
    /** In shell tools, also match each shell command of the input in normal form (permission-check.ts). */
    shell: z.boolean().optional(),
    /** Check the input as the rewrites leave it. */
    after_rewrite: z.boolean().optional(),
  })
  .superRefine(needsPattern);
const RewriteSchema = z.strictObject({
  ...matchFields,
  input: PatternSchema,
  replace: z.string().max(1024),
  reason: Text,
  reversible: z.boolean().optional(),
});

export const PermissionOptionsSchema = z.strictObject({
  /** Put the built-in default rules (DEFAULT_PERMISSION_RULES) before these. */
  include_defaults: z.boolean().default(false),
  deny: z.array(DenySchema).max(200).default([]),
  /** Non-empty: every call that matches no allow rule is denied. */
  allow: z.array(MatchSchema).max(200).default([]),
  not_allowed: z
    .strictObject({ reason: Text.optional(), resolution_path: z.array(Text).max(50).optional(), type: SignalTypeSchema.optional() })
    .optional(),
  rewrite: z.array(RewriteSchema).max(200).default([]),
});
export type PermissionOptions = z.infer<typeof PermissionOptionsSchema>;

/** The pattern as createPermissionCheck takes it (which anchors `tool` patterns to the whole name). */
function toSpec(pattern: Pattern): PatternSpec {
  return typeof pattern === 'string' ? pattern : { regex: pattern.regex, flags: pattern.flags };
}

function toMatch(rule: z.infer<typeof MatchSchema>): PermissionMatch {
  return {
    ...(rule.name === undefined ? {} : { name: rule.name }),
    ...(rule.type === undefined ? {} : { type: rule.type }),
    ...(rule.tool === undefined ? {} : { tool: toSpec(rule.tool) }),
    ...(rule.input === undefined ? {} : { input: toSpec(rule.input) }),
    ...(rule.field === undefined ? {} : { field: rule.field }),
  };
}

/** Runs `parts` one after the other under one name and concatenates their verdicts. */
export function composeOracles(name: string, parts: readonly Oracle[]): Oracle {
  const triggers = parts[0]?.triggers;
  return {
    name,
    ...(triggers === undefined ? {} : { triggers }),
    async evaluate(input, ctx) {
      const verdicts: OracleVerdict[] = [];
      for (const part of parts) {
        const answer: unknown = await part.evaluate(input, ctx);
        // Anything but a list is handed back as it is, so the evaluator reports it as invalid.
        if (!Array.isArray(answer)) return answer as OracleVerdict[];
        verdicts.push(...(answer as OracleVerdict[]));
      }
      return verdicts;
    },
  };
}

export const permissionCheck = defineBuiltin({
  name: 'permission-check',
  summary: 'Tool calls: deny and allow patterns on the tool name and input, rewrites (e.g. --force → --force-with-lease).',
  triggers: ['pre-tool-use'],
  options: PermissionOptionsSchema,
  acceptsRules: true,
  create({ name, options, rules }) {
    const defaults = options.include_defaults ? DEFAULT_PERMISSION_RULES : { deny: [], rewrite: [] };
    const deny: PermissionDenyRule[] = [
      ...(defaults.deny ?? []),
      ...options.deny.map((rule) => ({
        ...toMatch(rule),
        reason: rule.reason,
        ...(rule.resolution_path === undefined ? {} : { resolution_path: rule.resolution_path }),
        ...(rule.resolvable === undefined ? {} : { resolvable: rule.resolvable }),
        ...(rule.shell === undefined ? {} : { shell: rule.shell }),
        ...(rule.after_rewrite === undefined ? {} : { after_rewrite: rule.after_rewrite }),
      })),
    ];
    const rewrite: PermissionRewriteRule[] = [
      ...(defaults.rewrite ?? []),
      ...options.rewrite.map((rule) => ({
        ...toMatch(rule),
        input: toSpec(rule.input),
        replace: rule.replace,
        reason: rule.reason,
        ...(rule.reversible === undefined ? {} : { reversible: rule.reversible }),
      })),
    ];
    let core: Oracle;
    try {
      core = createPermissionCheck({
        name,
        deny,
        rewrite,
        allow: options.allow.map(toMatch),
        ...(options.not_allowed === undefined ? {} : { not_allowed: options.not_allowed }),
      });
    } catch (error) {
      if (error instanceof OracleSetupError) throw new BuiltinOptionsError(error.message.replace(`${name}: `, ''));
      throw error;
    }
    return rules === undefined ? core : composeOracles(name, [core, rules]);
  },
});

/** A problem with a built-in's options found while creating it; reported at the entry's `options`. */
export class BuiltinOptionsError extends Error {
  override readonly name = 'BuiltinOptionsError';
}
