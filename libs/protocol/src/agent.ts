/**
 * Who an agent is, and how the gateway learns it from a token. An agent's identity comes only
 * from its token (never from what it says in a frame), so an agent can act only as itself, and
 * the attributes rules use for strictness (team, role, environment) are the operator's word.
 */
import { z } from 'zod';
import { IdSchema, ShortStringSchema, boundedArray } from './primitives.js';

/** A team role (docs/spec/teams.md#lead-and-teammates): the lead runs the team's protocols, teammates answer them. */
export const AgentRoleSchema = z.enum(['lead', 'teammate']).meta({ id: 'AgentRole' });
export type AgentRole = z.infer<typeof AgentRoleSchema>;

/** An authenticated agent as the gateway, the workers and the console see it. */
export const AgentIdentitySchema = z
  .strictObject({
    id: IdSchema,
    name: ShortStringSchema,
    team: IdSchema.optional(),
    role: AgentRoleSchema.optional(),
    /**
     * The environment the agent works in (`production`, `staging`, …), set by the operator who
     * minted the token. Rules read it as `env` and `agent.environment` to decide how strict to be;
     * a hook context cannot name or change it.
     */
    environment: IdSchema.optional(),
  })
  .meta({ id: 'AgentIdentity', description: 'An authenticated agent: id, display name, optional team, role and environment (all from its token).' });
export type AgentIdentity = z.infer<typeof AgentIdentitySchema>;

/** A SHA-256 digest in lowercase hex: how tokens are kept at rest. */
export const Sha256HexSchema = z.string().regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 digest in lowercase hex');

/**
 * One entry of the agent tokens file. Only the token's SHA-256 is stored: tokens are long random
 * secrets (≥ 128 bits), so a fast hash is enough to make a leaked file useless, and the gateway
 * can look a presented token up by its digest without comparing secrets byte by byte.
 */
export const AgentTokenEntrySchema = AgentIdentitySchema.extend({
  token_sha256: Sha256HexSchema,
  /** A revoked entry stays in the file for the record but authenticates nobody. */
  revoked: z.boolean().optional(),
}).meta({ id: 'AgentTokenEntry' });
export type AgentTokenEntry = z.infer<typeof AgentTokenEntrySchema>;

/** The agent tokens file (`AHP_AGENT_TOKENS_FILE`): agent ids and token digests are unique. */
export const AgentTokensFileSchema = z
  .strictObject({ agents: boundedArray(AgentTokenEntrySchema, 100_000) })
  .superRefine((file, ctx) => {
    const ids = new Set<string>();
    const digests = new Set<string>();
    file.agents.forEach((entry, index) => {
      if (ids.has(entry.id)) {
        ctx.addIssue({ code: 'custom', path: ['agents', index, 'id'], message: `agent id "${entry.id}" appears twice` });
      }
      if (digests.has(entry.token_sha256)) {
        ctx.addIssue({ code: 'custom', path: ['agents', index, 'token_sha256'], message: 'two agents share one token' });
      }
      ids.add(entry.id);
      digests.add(entry.token_sha256);
    });
  })
  .meta({ id: 'AgentTokensFile', description: 'Agent identities with the SHA-256 of their bearer tokens.' });
export type AgentTokensFile = z.infer<typeof AgentTokensFileSchema>;

/**
 * Plain agent tokens kept by whoever runs those agents locally (the main job's demo fleet), never
 * by the gateway: one entry per agent id.
 */
export const AgentCredentialsFileSchema = z
  .strictObject({
    agents: boundedArray(z.strictObject({ id: IdSchema, token: z.string().min(16).max(512) }), 10_000),
  })
  .superRefine((file, ctx) => {
    const ids = new Set<string>();
    file.agents.forEach((entry, index) => {
      if (ids.has(entry.id)) ctx.addIssue({ code: 'custom', path: ['agents', index, 'id'], message: `agent id "${entry.id}" appears twice` });
      ids.add(entry.id);
    });
  })
  .meta({ id: 'AgentCredentialsFile' });
export type AgentCredentialsFile = z.infer<typeof AgentCredentialsFileSchema>;
