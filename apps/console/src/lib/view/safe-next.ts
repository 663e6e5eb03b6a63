/**
 * Where the sign-in page sends the operator afterwards (`?next=`): a path of this console only.
 * To a browser `//host` and `/\host` name other sites, so anything but a plain absolute path
 * (no scheme, no host, no whitespace) goes to the fleet instead: no open redirect.
 */
export function safeNextPath(value: string | string[] | undefined): string {
  return typeof value === 'string' && /^\/(?![/\\])[^\s\\]*$/.test(value) ? value : '/';
}
