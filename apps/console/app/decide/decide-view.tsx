'use client';
/**
 * The approval card of a decision link: what the link would do, the request it is for, and one
 * button that decides it as the signed-in operator. Opening the page never decides: mail
 * scanners and chat previews open links too. Refusals (expired, used, someone else's, settled)
 * get a page of their own that says why and, for a settled request, who decided.
 */
import Link from 'next/link';
import { useEffect, useMemo, useState } from 'react';
import { DecisionLinkTokenSchema, type DecisionLinkInspectResponse, type ProtocolState } from '@ahp/protocol';
import { isApiError } from '@/lib/api/client';
import { inspectLink, redeemLink } from '@/lib/api/links';
import { linkNotice, type LinkNotice } from '@/lib/view/link-refusal';
import { requestHiddenText } from '@/lib/view/request-text';
import { JsonBlock } from '@/components/json-block';
import { HiddenTextWarning, VisibleText } from '@/components/visible-text';
import { PlanView } from '@/components/plan-view';
import { Loading } from '@/components/states';

/** Where the token waits while the operator signs in (this tab only; removed once used). */
const STORAGE_KEY = 'ahp:decide-token';

type View =
  | { kind: 'loading' }
  | { kind: 'no-link' }
  | { kind: 'ready'; token: string; info: DecisionLinkInspectResponse }
  | { kind: 'deciding'; token: string; info: DecisionLinkInspectResponse }
  | { kind: 'done'; state: ProtocolState }
  | { kind: 'notice'; notice: LinkNotice }
  | { kind: 'error'; message: string };

/** The token from the URL's fragment (then dropped from the address bar) or the one kept for this tab. */
function takeToken(): string | null {
  const fromHash = window.location.hash.slice(1);
  if (fromHash !== '' && DecisionLinkTokenSchema.safeParse(fromHash).success) {
    window.sessionStorage.setItem(STORAGE_KEY, fromHash);
    window.history.replaceState(null, '', window.location.pathname);
    return fromHash;
  }
  return window.sessionStorage.getItem(STORAGE_KEY);
}

function failure(error: unknown): View {
  if (isApiError(error)) {
    if (error.status === 401) return { kind: 'loading' }; // callJson is taking the operator to sign in.
    if (error.error.code === 'E_FORBIDDEN' && error.error.details?.['link'] === undefined) return { kind: 'error', message: error.error.message };
    return { kind: 'notice', notice: linkNotice(error.error) };
  }
  return { kind: 'error', message: error instanceof Error ? error.message : String(error) };
}

function What({ request }: { request: ProtocolState }) {
  const hidden = useMemo(() => requestHiddenText(request), [request]);
  return (
    <>
      <HiddenTextWarning report={hidden} />
      <Asked request={request} />
    </>
  );
}

function Asked({ request }: { request: ProtocolState }) {
  switch (request.type) {
    case 'tool_approval':
      return (
        <>
          <p>
            <strong>{request.sender}</strong> wants to call{' '}
            <code>
              <VisibleText text={request.payload.tool} />
            </code>
            {request.payload.reason ? (
              <>
                {' '}
                — <VisibleText text={request.payload.reason} />
              </>
            ) : null}
          </p>
          <JsonBlock value={request.payload.input} label="Tool input" />
        </>
      );
    case 'plan_approval':
      return <PlanView plan={request.payload.plan} caption={`Plan of ${request.sender}`} />;
    case 'intervention':
      return (
        <p>
          <strong>{request.sender}</strong> stopped and asks for a person: <VisibleText text={request.payload.reason} />
        </p>
      );
    case 'shutdown':
      return (
        <p>
          Shut down <strong>{request.sender}</strong>
          {request.payload.reason ? (
            <>
              : <VisibleText text={request.payload.reason} />
            </>
          ) : null}
        </p>
      );
  }
}

export function DecideView() {
  const [view, setView] = useState<View>({ kind: 'loading' });

  useEffect(() => {
    const token = takeToken();
    if (token === null) {
      setView({ kind: 'no-link' });
      return;
    }
    const controller = new AbortController();
    inspectLink(token, controller.signal).then(
      (info) => setView({ kind: 'ready', token, info }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        // Kept only across a sign-in (401); a link refused for any other reason is not kept.
        if (!(isApiError(error) && error.status === 401)) window.sessionStorage.removeItem(STORAGE_KEY);
        setView(failure(error));
      },
    );
    return () => controller.abort();
  }, []);

  const decide = async (token: string, info: DecisionLinkInspectResponse) => {
    setView({ kind: 'deciding', token, info });
    try {
      const result = await redeemLink(token);
      window.sessionStorage.removeItem(STORAGE_KEY);
      setView({ kind: 'done', state: result.request });
    } catch (error) {
      window.sessionStorage.removeItem(STORAGE_KEY);
      setView(failure(error));
    }
  };

  switch (view.kind) {
    case 'loading':
      return <Loading label="Opening the link" />;
    case 'no-link':
      return (
        <p className="notice notice-warning" role="status">
          No decision link here. Open the link from the notification again, or go to the <Link href="/approvals">approvals</Link>.
        </p>
      );
    case 'error':
      return (
        <p className="notice notice-error" role="alert">
          {view.message} <Link href="/approvals">Approvals</Link>
        </p>
      );
    case 'notice':
      return (
        <section className={`notice ${view.notice.kind === 'settled' ? 'notice-info' : 'notice-warning'}`} role="alert" data-link-notice={view.notice.kind}>
          <h1>{view.notice.title}</h1>
          <p>{view.notice.text}</p>
          <p>
            <Link href="/approvals">Open the approvals</Link>
          </p>
        </section>
      );
    case 'done':
      return (
        <section className="notice notice-success" role="status" data-link-done={view.state.status}>
          <h1>{view.state.status === 'approved' ? 'Approved' : view.state.status === 'rejected' ? 'Rejected' : `Request ${view.state.status}`}</h1>
          <p>
            Decided by {view.state.decided_by ?? 'you'}. The agent has been told. <Link href="/approvals">Back to the approvals</Link>
          </p>
        </section>
      );
    case 'ready':
    case 'deciding': {
      const { info } = view;
      const approve = info.link.decision === 'approve';
      return (
        <article className="card" aria-labelledby="decide-heading" data-request-id={info.request.request_id}>
          <h1 id="decide-heading">{approve ? 'Approve this request?' : 'Reject this request?'}</h1>
          <What request={info.request} />
          <p className="muted">
            Request <code>{info.request.request_id}</code>
            {info.request.deadline ? <> · decides itself at {info.request.deadline}</> : null} · link from <code>{info.link.channel}</code>
            {info.link.tier > 0 ? ` (escalation ${info.link.tier})` : ''}, valid until {info.link.expires_at}
          </p>
          <p>
            <button type="button" className={`button ${approve ? 'button-primary' : 'button-danger'}`} disabled={view.kind === 'deciding'} onClick={() => void decide(view.token, info)}>
              {view.kind === 'deciding' ? 'Deciding…' : approve ? 'Approve' : 'Reject'}
            </button>{' '}
            <Link className="button button-quiet" href="/approvals">
              Something else: open the approvals
            </Link>
          </p>
        </article>
      );
    }
  }
}
