/* global self */
/*
 * The console's service worker: shows the Web Push notifications AHP's workers send (see
 * docs/notifications.md "Web Push") and opens the console when one is tapped. Its Approve and
 * Reject actions open the decision link's /decide page: the decision is still made there, with
 * the operator's session, never from the notification alone. Only pages of this console are
 * opened; anything else in a message falls back to the approvals page.
 */
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

function text(value, fallback) {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

self.addEventListener('push', (event) => {
  let data;
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  const links = data && typeof data.links === 'object' && data.links !== null ? data.links : {};
  const actions = [];
  if (typeof links.approve === 'string') actions.push({ action: 'approve', title: 'Approve' });
  if (typeof links.reject === 'string') actions.push({ action: 'reject', title: 'Reject' });
  event.waitUntil(
    self.registration.showNotification(text(data.title, 'A request waits for a person'), {
      body: text(data.body, ''),
      tag: text(data.request_id, 'ahp'),
      renotify: true,
      requireInteraction: true,
      icon: '/icon.svg',
      data: { url: text(data.url, '/approvals'), approve: links.approve, reject: links.reject },
      actions,
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const data = event.notification.data || {};
  const wanted = event.action === 'approve' ? data.approve : event.action === 'reject' ? data.reject : data.url;
  let target;
  try {
    target = new URL(text(wanted, '/approvals'), self.location.origin);
  } catch {
    target = new URL('/approvals', self.location.origin);
  }
  if (target.origin !== self.location.origin) target = new URL('/approvals', self.location.origin);
  event.waitUntil(self.clients.openWindow(target.href));
});
