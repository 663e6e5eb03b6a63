import type { Metadata, Viewport } from 'next';
import type { ReactNode } from 'react';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'AHP ops console', template: '%s · AHP ops console' },
  description: 'Watch the agent fleet and decide what agents may not decide alone.',
  // Installable on a phone (the service worker, public/sw.js, shows Web Push notifications).
  // The favicon is app/icon.svg (Next's file convention adds the <link rel="icon">; it is served at
  // /icon.svg, which the manifest and the service worker's notifications use too).
  manifest: '/manifest.webmanifest',
};

// The page follows the system's light or dark preference (globals.css); `colorScheme` lets the
// browser draw its own controls and scrollbars to match before the stylesheet loads.
export const viewport: Viewport = {
  width: 'device-width',
  initialScale: 1,
  colorScheme: 'light dark',
  themeColor: [
    { media: '(prefers-color-scheme: light)', color: '#111827' },
    { media: '(prefers-color-scheme: dark)', color: '#0b0d12' },
  ],
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
