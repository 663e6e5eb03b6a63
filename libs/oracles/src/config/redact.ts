/**
 * Hooks configuration text with its credentials masked, for the operators who may read the
 * configuration but not the secrets in it. The credentials of hooks.yaml are the notification
 * channels' `url`s: a Slack incoming-webhook URL is the whole secret, and a webhook URL may carry
 * a token in its path or query (every other secret is the name of a worker variable, not a value).
 */
import { isMap, isScalar, parseDocument, visit } from 'yaml';

/**
 * What a masked credential reads as. It is not an http(s) URL, so a text carrying it back can
 * never publish it as a channel's address (publish also refuses it by name, more clearly).
 */
export const REDACTED_CREDENTIAL = '<redacted: only a fleet-wide admin reads it>';

/** Shown instead of a text that does not parse: what cannot be read cannot be masked field by field. */
const UNREADABLE = `# ${REDACTED_CREDENTIAL}: this text could not be parsed to mask its credentials\n`;

export interface RedactedConfig {
  source: string;
  /** How many credential values were masked. */
  redacted: number;
}

/** The credential values of a parsed configuration: every `notifications.channels.*.url` that is text. */
function credentialsOf(config: unknown): Set<string> {
  const found = new Set<string>();
  const channels = (config as { notifications?: { channels?: unknown } } | null)?.notifications?.channels;
  if (channels === null || typeof channels !== 'object') return found;
  for (const channel of Object.values(channels)) {
    const url = (channel as { url?: unknown } | null)?.url;
    if (typeof url === 'string' && url !== '') found.add(url);
  }
  return found;
}

/**
 * `source` with each credential value replaced by {@link REDACTED_CREDENTIAL}, the rest of the
 * text as written (comments, order, quoting). Fails closed: every scalar holding a credential is
 * masked wherever it is (an anchor shared by an alias included), then any copy left in the text (a
 * comment) too; a text that does not parse is replaced whole.
 */
export function redactHooksConfigCredentials(source: string): RedactedConfig {
  const document = parseDocument(source, { uniqueKeys: false });
  if (document.errors.length > 0) return { source: UNREADABLE, redacted: 1 };
  let secrets: Set<string>;
  try {
    secrets = credentialsOf(document.toJS({ maxAliasCount: 100 }));
  } catch {
    return { source: UNREADABLE, redacted: 1 };
  }
  if (secrets.size === 0 || !isMap(document.contents)) return { source, redacted: 0 };

  const ranges: [number, number][] = [];
  visit(document, {
    Scalar(_key, node) {
      if (isScalar(node) && typeof node.value === 'string' && secrets.has(node.value) && node.range !== undefined && node.range !== null) {
        ranges.push([node.range[0], node.range[1]]);
      }
    },
  });
  // From the end, so earlier offsets stay valid.
  ranges.sort((a, b) => b[0] - a[0]);
  let text = source;
  const marker = JSON.stringify(REDACTED_CREDENTIAL);
  for (const [start, end] of ranges) text = text.slice(0, start) + marker + text.slice(end);
  for (const secret of secrets) text = text.split(secret).join(REDACTED_CREDENTIAL);
  return { source: text, redacted: secrets.size };
}
