import { useState } from 'preact/hooks';
import { dataOf } from '../../../http/client/api-client.js';
import { api, localInbox } from '../api.js';
import { signWithPasskey } from '../passkeys.js';
import type { Session } from '../session.js';
import { Alert, Field, Form, Notice, navigate, useAction } from '../ui.js';

/** Sign in, sign up with its emailed code, and the forgotten-password path. */

export function SignIn({ session, notice }: { session: Session; notice?: string | null }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [ticket, setTicket] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  if (ticket !== null) {
    return <SecondFactor session={session} ticket={ticket} onRestart={() => setTicket(null)} />;
  }
  return (
    <main class="narrow">
      <h1>Sign in</h1>
      {notice && <Notice>{notice}</Notice>}
      <Form
        label="Sign in"
        onSubmit={() =>
          run(async () => {
            const signedIn = await dataOf(api.POST('/auth/login', { body: { email, password } }));
            if ('mfa_required' in signedIn) {
              setTicket(signedIn.mfa_ticket);
              return;
            }
            session.start(signedIn);
            navigate('#/endpoints');
          })
        }
      >
        <Field
          label="Email"
          name="email"
          type="email"
          autocomplete="username"
          value={email}
          onInput={setEmail}
          error={error}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autocomplete="current-password"
          value={password}
          onInput={setPassword}
          error={error}
        />
        <Alert error={error} fields={['email', 'password']} />
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
      </Form>
      <p>
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            run(async () => {
              const options = await dataOf(api.POST('/auth/passkeys/authentication-options'));
              const credential = await signWithPasskey(options);
              session.start(
                await dataOf(api.POST('/auth/passkeys/login', { body: { credential } })),
              );
              navigate('#/endpoints');
            })
          }
        >
          Use a passkey
        </button>
      </p>
      <p>
        <a href="#/forgot-password">Forgot your password?</a> ·{' '}
        <a href="#/sign-up">Create an account</a>
      </p>
    </main>
  );
}

/** The second step of a sign-in on an account with an authenticator app. */
function SecondFactor({
  session,
  ticket,
  onRestart,
}: {
  session: Session;
  ticket: string;
  onRestart: () => void;
}) {
  const [code, setCode] = useState('');
  const { busy, error, run } = useAction();
  return (
    <main class="narrow">
      <h1>Enter a code from your authenticator app</h1>
      <Form
        label="Verify"
        onSubmit={() =>
          run(async () => {
            const typed = code.trim();
            const proof = /^\d{6}$/.test(typed) ? { code: typed } : { recovery_code: typed };
            session.start(
              await dataOf(
                api.POST('/auth/mfa/verify', { body: { mfa_ticket: ticket, ...proof } }),
              ),
            );
            navigate('#/endpoints');
          })
        }
      >
        <Field
          label="Code"
          name="code"
          autocomplete="one-time-code"
          hint="The 6 digits the app shows now, or one of your recovery codes."
          value={code}
          onInput={setCode}
          error={error}
        />
        <Alert error={error} fields={['code', 'recovery_code', 'mfa_ticket']} />
        <button type="submit" class="primary" disabled={busy}>
          Verify
        </button>
      </Form>
      <p>
        <button type="button" class="link" onClick={onRestart}>
          Sign in again
        </button>
      </p>
    </main>
  );
}

export function SignUp() {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  return (
    <main class="narrow">
      <h1>Create an account</h1>
      <Form
        label="Create an account"
        onSubmit={() =>
          run(async () => {
            await dataOf(api.POST('/auth/signup', { body: { name, email, password } }));
            navigate(`#/verify?email=${encodeURIComponent(email)}`);
          })
        }
      >
        <Field
          label="Name"
          name="name"
          autocomplete="name"
          value={name}
          onInput={setName}
          error={error}
        />
        <Field
          label="Email"
          name="email"
          type="email"
          autocomplete="email"
          value={email}
          onInput={setEmail}
          error={error}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autocomplete="new-password"
          hint="At least 8 characters."
          value={password}
          onInput={setPassword}
          error={error}
        />
        <Alert error={error} fields={['name', 'email', 'password']} />
        <button type="submit" class="primary" disabled={busy}>
          Create account
        </button>
      </Form>
      <p>
        Already have an account? <a href="#/sign-in">Sign in</a>
      </p>
    </main>
  );
}

export function VerifySignup({ session, email }: { session: Session; email: string }) {
  const [otp, setOtp] = useState('');
  const [resent, setResent] = useState(false);
  const { busy, error, run } = useAction();
  return (
    <main class="narrow">
      <h1>Check your email</h1>
      <p>
        If <strong>{email}</strong> can be registered, a 6-digit code is on its way to it.
      </p>
      <LocalMessages />
      {resent && <Notice>If a code can be sent, a new one is on its way.</Notice>}
      <Form
        label="Enter the code"
        onSubmit={() =>
          run(async () => {
            const tokens = await dataOf(
              api.POST('/auth/verify-signup-otp', { body: { email, otp } }),
            );
            session.start(tokens);
            navigate(tokens.password_reset_required ? '#/account?set-password=1' : '#/endpoints');
          })
        }
      >
        <Field
          label="Code"
          name="otp"
          inputMode="numeric"
          autocomplete="one-time-code"
          value={otp}
          onInput={setOtp}
          error={error}
        />
        <Alert error={error} fields={['otp']} />
        <button type="submit" class="primary" disabled={busy}>
          Verify
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            run(async () => {
              await dataOf(api.POST('/otp/resend/email', { body: { email } }));
              setResent(true);
            })
          }
        >
          Send a new code
        </button>
      </Form>
    </main>
  );
}

export function ForgotPassword() {
  const [email, setEmail] = useState('');
  const { busy, error, run } = useAction();
  return (
    <main class="narrow">
      <h1>Reset your password</h1>
      <Form
        label="Reset your password"
        onSubmit={() =>
          run(async () => {
            await dataOf(api.POST('/auth/forgot-password', { body: { email } }));
            navigate(`#/reset-password?email=${encodeURIComponent(email)}`);
          })
        }
      >
        <Field
          label="Email"
          name="email"
          type="email"
          autocomplete="username"
          value={email}
          onInput={setEmail}
          error={error}
        />
        <Alert error={error} fields={['email']} />
        <button type="submit" class="primary" disabled={busy}>
          Send a code
        </button>
      </Form>
      <p>
        <a href="#/sign-in">Back to sign in</a>
      </p>
    </main>
  );
}

export function ResetPassword({ email }: { email: string }) {
  const [otp, setOtp] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  return (
    <main class="narrow">
      <h1>Choose a new password</h1>
      <p>
        If <strong>{email}</strong> has an account, a 6-digit code is on its way to it.
      </p>
      <LocalMessages />
      <Form
        label="Choose a new password"
        onSubmit={() =>
          run(async () => {
            await dataOf(
              api.POST('/auth/reset-password-otp', {
                body: { email, otp, new_password: password },
              }),
            );
            navigate('#/sign-in?reset=1');
          })
        }
      >
        <Field
          label="Code"
          name="otp"
          inputMode="numeric"
          autocomplete="one-time-code"
          value={otp}
          onInput={setOtp}
          error={error}
        />
        <Field
          label="New password"
          name="new_password"
          type="password"
          autocomplete="new-password"
          value={password}
          onInput={setPassword}
          error={error}
        />
        <Alert error={error} fields={['otp', 'new_password']} />
        <button type="submit" class="primary" disabled={busy}>
          Set password
        </button>
      </Form>
    </main>
  );
}

/** Locally no message leaves the machine: say where the code is instead. */
function LocalMessages() {
  if (localInbox === undefined) return null;
  return (
    <p class="hint local-note">
      Running locally, no email or text is sent: the code is in the{' '}
      <a href="/_local/outbox">local outbox</a> and printed on the console where{' '}
      <code>npm start</code> runs.
    </p>
  );
}
