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
import { createPermissionCheck } from '../permission-check.js';
import type { PermissionDenyRule, PermissionMatch, PermissionRewriteRule } from '../permission-check.js';
import { defineBuiltin } from './types.js';

/** Longest pattern accepted (patterns run synchronously: keep them short and linear). */
export const MAX_PATTERN_CHARS = 1024;

/**
 * A pattern: a regular-expression source, or `{ regex, flags }` with flags among `i m s u`.
 * For `tool` it must match the whole tool name; for `input` it is searched anywhere.
 */
const PatternSchema = z
  .union([
    z.string().min(1).max(MAX_PATTERN_CHARS),
    z.strictObject({ regex: z.string().min(1).max(MAX_PATTERN_CHARS), flags: z.string().regex(/^(?!.*(.).*\1)[imsu]*$/, 'must be some of i, m, s, u (each once)').optional() }),
  ])
  .superRefine((value, ctx) => {
    const source = typeof value === 'string' ? value : value.regex;
    const flags = typeof value === 'string' ? '' : (value.flags ?? '');
    try {
      new RegExp(source, flags);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `not a valid regular expression: ${(error as Error).message}` });
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
  .strictObject({ ...matchFields, reason: Text, resolution_path: z.array(Text).max(50).optional(), resolvable: z.boolean().optional() })
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

function toRegExp(pattern: Pattern, whole: boolean): string | RegExp {
  if (typeof pattern === 'string') return pattern;
  return new RegExp(whole ? `^(?:${pattern.regex})$` : pattern.regex, pattern.flags ?? '');
}

function toMatch(rule: z.infer<typeof MatchSchema>): PermissionMatch {
  return {
    ...(rule.name === undefined ? {} : { name: rule.name }),
    ...(rule.type === undefined ? {} : { type: rule.type }),
    ...(rule.tool === undefined ? {} : { tool: toRegExp(rule.tool, true) }),
    ...(rule.input === undefined ? {} : { input: toRegExp(rule.input, false) }),
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
      })),
    ];
    const rewrite: PermissionRewriteRule[] = [
      ...(defaults.rewrite ?? []),
      ...options.rewrite.map((rule) => ({
        ...toMatch(rule),
        input: toRegExp(rule.input, false),
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
