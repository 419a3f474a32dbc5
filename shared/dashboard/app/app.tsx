import { useEffect, useRef, useState } from 'preact/hooks';
import { localInbox, type User } from './api.js';
import { Account } from './pages/account.js';
import { ForgotPassword, ResetPassword, SignIn, SignUp, VerifySignup } from './pages/auth.js';
import { EndpointPage } from './pages/endpoint.js';
import { Endpoints } from './pages/endpoints.js';
import { EventTypes } from './pages/event-types.js';
import type { Session } from './session.js';
import { useRoute } from './ui.js';

function focusHeading(container: HTMLElement | null): (() => void) | undefined {
  const heading = container?.querySelector<HTMLElement>('h1');
  if (heading) {
    heading.setAttribute('tabindex', '-1');
    heading.focus();
    return undefined;
  }
  if (!container) return undefined;
  // A page that loads first (an endpoint's) shows its heading once its data is there: focus it
  // then, unless the page changed before.
  const observer = new MutationObserver(() => {
    if (container.querySelector('h1') === null) return;
    observer.disconnect();
    focusHeading(container);
  });
  observer.observe(container, { childList: true, subtree: true });
  return () => observer.disconnect();
}

export function App({ session }: { session: Session }) {
  const [user, setUser] = useState<User | undefined>(session.user);
  const [resuming, setResuming] = useState(true);
  const route = useRoute();
  const main = useRef<HTMLDivElement>(null);
  useEffect(() => session.onChange(setUser), [session]);
  useEffect(() => {
    void session.resume().finally(() => setResuming(false));
  }, [session]);
  // A new page moves focus to its heading, so keyboard and screen-reader users start there.
  // Runs on each route change and on signing in or out.
  useEffect(() => focusHeading(main.current), [route.path, user === undefined]);
  if (resuming) return <p class="loading">Loading…</p>;
  const signedIn = user !== undefined;
  return (
    <>
      <button type="button" class="skip" onClick={() => focusHeading(main.current)}>
        Skip to content
      </button>
      <header class="top">
        <a class="brand" href={signedIn ? '#/endpoints' : '#/sign-in'}>
          Developer dashboard
        </a>
        <nav aria-label="Main">
          {signedIn && (
            <>
              <a
                href="#/endpoints"
                aria-current={route.path.startsWith('/endpoints') ? 'page' : undefined}
              >
                Endpoints
              </a>
              <a href="#/account" aria-current={route.path === '/account' ? 'page' : undefined}>
                Account
              </a>
            </>
          )}
          <a href="#/event-types" aria-current={route.path === '/event-types' ? 'page' : undefined}>
            Event types
          </a>
          <a href="/docs">API reference</a>
          {localInbox && <a href="/_local/inbox">Local inbox</a>}
          {localInbox && <a href="/_local/outbox">Local outbox</a>}
          {signedIn && (
            <button type="button" class="link" onClick={() => void session.signOut()}>
              Sign out
            </button>
          )}
        </nav>
      </header>
      <div id="content" ref={main}>
        {signedIn ? (
          <SignedIn session={session} path={route.path} params={route.params} />
        ) : (
          <SignedOut session={session} path={route.path} params={route.params} />
        )}
      </div>
    </>
  );
}

interface PageProps {
  session: Session;
  path: string;
  params: URLSearchParams;
}

function SignedIn({ session, path, params }: PageProps) {
  if (path === '/event-types') return <EventTypes />;
  const endpoint = /^\/endpoints\/([^/]+)$/.exec(path)?.[1];
  if (endpoint !== undefined) {
    // `?status=failed`: where the failure digest's link opens the deliveries list.
    return <EndpointPage session={session} id={endpoint} status={params.get('status')} />;
  }
  if (path === '/account') {
    return <Account session={session} settingPassword={params.has('set-password')} />;
  }
  return <Endpoints session={session} />;
}

function SignedOut({ session, path, params }: PageProps) {
  const email = params.get('email') ?? '';
  switch (path) {
    case '/event-types':
      return <EventTypes />;
    case '/sign-up':
      return <SignUp />;
    case '/verify':
      return <VerifySignup session={session} email={email} />;
    case '/forgot-password':
      return <ForgotPassword />;
    case '/reset-password':
      return <ResetPassword email={email} />;
    default:
      return (
        <SignIn
          session={session}
          notice={params.has('reset') ? 'Password changed. Sign in with your new password.' : null}
        />
      );
  }
}
