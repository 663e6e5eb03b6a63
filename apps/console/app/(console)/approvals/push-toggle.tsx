'use client';
/**
 * "Notify this device": turns Web Push on for this browser (the console installed on a phone, or
 * any browser that supports it). Registers the service worker, asks the browser for a push
 * subscription with the deployment's VAPID key and saves it for the signed-in operator; push
 * channels that name the operator then reach this device. Hidden where push is not supported.
 */
import { useEffect, useState } from 'react';
import { fetchVapidKey, removePushSubscription, savePushSubscription } from '@/lib/api/push';

type State = { kind: 'unsupported' | 'checking' | 'off' | 'on' | 'busy' } | { kind: 'error'; message: string };

function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const raw = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i += 1) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

const supported = () => typeof window !== 'undefined' && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

export function PushToggle() {
  const [state, setState] = useState<State>({ kind: 'checking' });

  useEffect(() => {
    if (!supported()) {
      setState({ kind: 'unsupported' });
      return;
    }
    navigator.serviceWorker
      .register('/sw.js')
      .then((registration) => registration.pushManager.getSubscription())
      .then((subscription) => setState({ kind: subscription === null ? 'off' : 'on' }))
      .catch((error: unknown) => setState({ kind: 'error', message: error instanceof Error ? error.message : String(error) }));
  }, []);

  const turnOn = async () => {
    setState({ kind: 'busy' });
    try {
      if ((await Notification.requestPermission()) !== 'granted') throw new Error('notifications are blocked for this site in the browser settings');
      const registration = await navigator.serviceWorker.ready;
      const { public_key: publicKey } = await fetchVapidKey();
      const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) });
      await savePushSubscription(subscription.toJSON());
      setState({ kind: 'on' });
    } catch (error) {
      setState({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
    }
  };

  const turnOff = async () => {
    setState({ kind: 'busy' });
    try {
      const registration = await navigator.serviceWorker.ready;
      const subscription = await registration.pushManager.getSubscription();
      if (subscription !== null) {
        await removePushSubscription(subscription.endpoint);
        await subscription.unsubscribe();
      }
      setState({ kind: 'off' });
    } catch (error) {
      setState({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
    }
  };

  if (state.kind === 'unsupported' || state.kind === 'checking') return null;
  return (
    <p className="push-toggle" data-push={state.kind}>
      {state.kind === 'on' ? (
        <button type="button" className="button button-quiet" onClick={() => void turnOff()}>
          Stop notifying this device
        </button>
      ) : (
        <button type="button" className="button button-quiet" onClick={() => void turnOn()} disabled={state.kind === 'busy'}>
          {state.kind === 'busy' ? 'Working…' : 'Notify this device'}
        </button>
      )}
      {state.kind === 'error' ? <span role="alert"> Push notifications: {state.message}</span> : null}
    </p>
  );
}
