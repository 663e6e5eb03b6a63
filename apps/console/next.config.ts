import type { NextConfig } from 'next';

/**
 * The console's Next.js configuration. `@ahp/protocol` is a workspace package (ESM built to
 * `dist/`, linked from outside this folder): listing it in `transpilePackages` makes both the
 * server and the browser bundles take it through the bundler like the app's own code. Nothing
 * here fetches from the internet (no remote fonts or images): `next build` works offline.
 */
const config: NextConfig = {
  transpilePackages: ['@ahp/protocol'],
  // The console's tracing (instrumentation.ts) is Node's to load at run time, never bundled: it
  // imports the OpenTelemetry SDK dynamically, and only when the OTEL_* variables switch it on.
  serverExternalPackages: ['@ahp/telemetry'],
  poweredByHeader: false,
  reactStrictMode: true,
  // An approval console must never be framed by another site (clickjacking an "Approve" button);
  // the session cookie is SameSite=Strict as well, so a framed console would not even be signed in.
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'X-Frame-Options', value: 'DENY' },
          { key: 'Content-Security-Policy', value: "frame-ancestors 'none'" },
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'same-origin' },
        ],
      },
    ];
  },
};

export default config;
