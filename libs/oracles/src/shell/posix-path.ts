/**
 * Lexical POSIX path normalisation, the one rules and the default shell checks share: a prefix
 * test on a path is only meaningful on its normal form, or `/work/project/../../etc/x` passes
 * `startswith "/work/project/"` while naming `/etc/x`.
 */

/**
 * `path` with empty and `.` segments dropped and each `..` removing the segment before it, the
 * way the kernel resolves a path without symlinks (`path.posix.normalize`, written out so the
 * module has no Node dependency). An absolute path cannot climb above `/` (`/..` is `/`); a
 * relative one keeps the `..` it cannot resolve. A trailing `/` is kept (it says "a directory"),
 * and `""` stays `""`.
 */
export function normalizePosixPath(path: string): string {
  // Already normal (no empty, `.` or `..` segment): most paths, returned without splitting.
  if (!ABNORMAL.test(path)) return path;
  const absolute = path.startsWith('/');
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!absolute) out.push('..');
      continue;
    }
    out.push(segment);
  }
  const body = out.join('/');
  const trailing = body.length > 0 && /\/\.{0,2}$/.test(path) ? '/' : '';
  if (absolute) return `/${body}${trailing}`;
  return body.length === 0 ? '.' : `${body}${trailing}`;
}

/** An empty, `.` or `..` segment: what {@link normalizePosixPath} changes. */
const ABNORMAL = /\/\/|(?:^|\/)\.\.?(?:\/|$)/;
