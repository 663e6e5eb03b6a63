/**
 * The name and version this SDK announces in `hello` by default. A constant rather than a read of
 * package.json, so the SDK needs no file system or JSON import and bundles for browsers; a spec
 * checks it against package.json.
 */
export const SDK_NAME = '@ahp/sdk';

/** Kept equal to `version` in package.json (checked by `version.spec.ts`). */
export const SDK_VERSION = '0.1.0';
