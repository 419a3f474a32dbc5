import Bowser from 'bowser';
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { SignedInSession, User } from '../api.js';
import { createPasskey } from '../passkeys.js';
import type { Session } from '../session.js';
import { Alert, Field, Form, formatTime, Notice, navigate, useAction, useLoad } from '../ui.js';

/** Sessions shown per page of the list. */
const sessionsPerPage = 5;

/** The account: profile, email and phone changes, password, and where it is signed in. */
export function Account({
  session,
  settingPassword,
}: {
  session: Session;
  settingPassword: boolean;
}) {
  // A password change signs the other sessions out: the list is read again after it.
  const [sessionsRead, setSessionsRead] = useState(0);
  return (
    <main>
      <h1>Account</h1>
      {settingPassword && (
        <Notice>
          Another signup used this email while yours waited for its code, so no password was kept.
          Choose your own now: no one else can sign in to this account.
        </Notice>
      )}
      <ChangePassword
        session={session}
        withoutCurrent={settingPassword}
        onChanged={() => setSessionsRead((value) => value + 1)}
      />
      {/* A new form once the email or phone moves, so its fields show the account as it is. */}
      <Profile key={`${session.user?.email}|${session.user?.phone}`} session={session} />
      <AuthenticatorApp session={session} />
      <Passkeys session={session} />
      <Sessions session={session} version={sessionsRead} />
    </main>
  );
}

function Profile({ session }: { session: Session }) {
  const user = session.user!;
  const [name, setName] = useState(user.name);
  const [email, setEmail] = useState(user.email);
  const [phone, setPhone] = useState(user.phone ?? '');
  const [currentPassword, setCurrentPassword] = useState('');
  const [notice, setNotice] = useState<string | undefined>();
  const { busy, error, run } = useAction();
  const identityChanged = email !== user.email || phone !== (user.phone ?? '');
  return (
    <section class="panel" aria-labelledby="profile-title">
      <h2 id="profile-title">Profile</h2>
      {user.pending_email && (
        <PendingValue session={session} channel="email" value={user.pending_email}>
          Waiting for you to confirm <strong>{user.pending_email}</strong> with the code sent to it.
          Until then you sign in with {user.email}.
        </PendingValue>
      )}
      {user.pending_phone && (
        <PendingValue session={session} channel="sms" value={user.pending_phone}>
          Waiting for you to confirm <strong>{user.pending_phone}</strong> with the code texted to
          it. Until then it cannot be used to sign in.
        </PendingValue>
      )}
      <Form
        label="Profile"
        onSubmit={() =>
          run(async () => {
            setNotice(undefined);
            const body = {
              ...(name === user.name ? {} : { name }),
              ...(email === user.email ? {} : { email }),
              ...(phone === (user.phone ?? '') ? {} : { phone_number: phone }),
              ...(identityChanged ? { current_password: currentPassword } : {}),
            };
            const { data } = await session.call((api) => api.PUT('/profile/update', { body }));
            const updated: User = data.user;
            session.setUser(updated);
            // A new email or phone waits below as pending: the fields show what is in force.
            setEmail(updated.email);
            setPhone(updated.phone ?? '');
            setCurrentPassword('');
            setNotice(
              data.verification_required.length > 0
                ? 'Saved. Enter the code we sent to confirm the new value; until then nothing else changes.'
                : 'Profile saved.',
            );
          })
        }
      >
        <Field label="Name" name="name" value={name} onInput={setName} error={error} />
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
          label="Phone number"
          name="phone_number"
          type="tel"
          autocomplete="tel"
          hint="In international format, such as +447911123456."
          value={phone}
          onInput={setPhone}
          error={error}
        />
        {identityChanged && (
          <Field
            label="Current password"
            name="current_password"
            type="password"
            autocomplete="current-password"
            hint="Needed to change your email or phone number."
            value={currentPassword}
            onInput={setCurrentPassword}
            error={error}
          />
        )}
        <Alert error={error} fields={['name', 'email', 'phone_number', 'current_password']} />
        {notice && <Notice>{notice}</Notice>}
        <button type="submit" class="primary" disabled={busy}>
          Save profile
        </button>
      </Form>
    </section>
  );
}

/**
 * A new email or phone waiting for its code: the code is entered here (verifyEmailOtp or
 * verifyMobileOtp), or asked for again; once confirmed, the profile is read again.
 */
function PendingValue({
  session,
  channel,
  value,
  children,
}: {
  session: Session;
  channel: 'email' | 'sms';
  value: string;
  children: ComponentChildren;
}) {
  const [code, setCode] = useState('');
  const [notice, setNotice] = useState<string | undefined>();
  const { busy, error, run } = useAction();
  const what = channel === 'email' ? 'email address' : 'phone number';
  return (
    <div class="pending-change">
      <Notice>{children}</Notice>
      <Form
        label={`Confirm the new ${what}`}
        onSubmit={() =>
          run(async () => {
            setNotice(undefined);
            if (channel === 'email') {
              await session.call((api) =>
                api.POST('/otp/verify/email', { body: { email: value, otp: code } }),
              );
            } else {
              await session.call((api) =>
                api.POST('/otp/verify/mobile', { body: { mobile_number: value, otp: code } }),
              );
            }
            setCode('');
            const { data } = await session.call((api) => api.GET('/profile'));
            session.setUser(data);
          })
        }
      >
        <Field
          label={`Code sent to ${value}`}
          name="otp"
          inputMode="numeric"
          autocomplete="one-time-code"
          value={code}
          onInput={setCode}
          error={error}
        />
        <Alert error={error} fields={['otp']} />
        {notice && <Notice>{notice}</Notice>}
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Confirm {what}
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              run(async () => {
                if (channel === 'email') {
                  await session.call((api) =>
                    api.POST('/otp/resend/email', { body: { email: value } }),
                  );
                } else {
                  await session.call((api) =>
                    api.POST('/otp/resend/mobile', { body: { mobile_number: value } }),
                  );
                }
                setNotice(`A new code is on its way to ${value}.`);
              })
            }
          >
            Send a new code
          </button>
        </div>
      </Form>
    </div>
  );
}

function ChangePassword({
  session,
  withoutCurrent,
  onChanged,
}: {
  session: Session;
  withoutCurrent: boolean;
  onChanged: () => void;
}) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [notice, setNotice] = useState<string | undefined>();
  const { busy, error, run } = useAction();
  return (
    <section class="panel" aria-labelledby="password-title">
      <h2 id="password-title">{withoutCurrent ? 'Set your password' : 'Change password'}</h2>
      <Form
        label="Change password"
        onSubmit={() =>
          run(async () => {
            setNotice(undefined);
            const body = withoutCurrent
              ? { new_password: next }
              : { current_password: current, new_password: next };
            await session.call((api) => api.POST('/auth/change-password', { body }));
            setCurrent('');
            setNext('');
            setNotice('Password changed. Your other sessions were signed out.');
            onChanged();
            if (withoutCurrent) navigate('#/account');
          })
        }
      >
        {!withoutCurrent && (
          <Field
            label="Current password"
            name="current_password"
            type="password"
            autocomplete="current-password"
            value={current}
            onInput={setCurrent}
            error={error}
          />
        )}
        <Field
          label="New password"
          name="new_password"
          type="password"
          autocomplete="new-password"
          hint="At least 8 characters."
          value={next}
          onInput={setNext}
          error={error}
        />
        <Alert error={error} fields={['current_password', 'new_password']} />
        {notice && <Notice>{notice}</Notice>}
        <button type="submit" class="primary" disabled={busy}>
          {withoutCurrent ? 'Set password' : 'Change password'}
        </button>
      </Form>
    </section>
  );
}

/** Where setting up an authenticator app is: not started, scanning, or done (codes shown once). */
/**
 * A form that asks for the current password before `act`, which is handed it; the field empties
 * once `act` succeeds, and a refusal is read beside it.
 */
function WithPassword(props: {
  label: string;
  hint: string;
  button: string;
  act: (password: string) => Promise<void>;
}) {
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  return (
    <Form
      label={props.label}
      onSubmit={() =>
        run(async () => {
          await props.act(password);
          setPassword('');
        })
      }
    >
      <Field
        label="Current password"
        name="current_password"
        type="password"
        autocomplete="current-password"
        hint={props.hint}
        value={password}
        onInput={setPassword}
        error={error}
      />
      <Alert error={error} fields={['current_password']} />
      <button type="submit" disabled={busy}>
        {props.button}
      </button>
    </Form>
  );
}

type AppSetup =
  | { step: 'password' }
  | { step: 'scan'; secret: string; qrSvg: string }
  | { step: 'done'; recoveryCodes: string[]; replaced?: boolean };

/**
 * The authenticator app: set up with the password, the QR code and a first code, which answers
 * the recovery codes, shown once with a download; removed with the password.
 */
function AuthenticatorApp({ session }: { session: Session }) {
  const user = session.user!;
  const enabled = user.mfa_enabled;
  const [setup, setSetup] = useState<AppSetup>({ step: 'password' });
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [notice, setNotice] = useState<string | undefined>();
  const { busy, error, run } = useAction();
  return (
    <section class="panel" aria-labelledby="app-title">
      <h2 id="app-title">Authenticator app</h2>
      <p>
        With an app set up, signing in also asks for the code it shows, so a stolen password is not
        enough.
      </p>
      {!enabled && setup.step === 'password' && (
        <Form
          label="Set up an authenticator app"
          onSubmit={() =>
            run(async () => {
              const { data } = await session.call((api) =>
                api.POST('/auth/mfa/totp/enrolment', { body: { current_password: password } }),
              );
              setPassword('');
              setSetup({ step: 'scan', secret: data.secret, qrSvg: data.qr_svg });
            })
          }
        >
          <Field
            label="Current password"
            name="current_password"
            type="password"
            autocomplete="current-password"
            value={password}
            onInput={setPassword}
            error={error}
          />
          <Alert error={error} fields={['current_password']} />
          <button type="submit" class="primary" disabled={busy}>
            Set up an app
          </button>
        </Form>
      )}
      {setup.step === 'scan' && (
        <Form
          label="Confirm the authenticator app"
          onSubmit={() =>
            run(async () => {
              const { data } = await session.call((api) =>
                api.POST('/auth/mfa/totp', { body: { code } }),
              );
              setCode('');
              setSetup({ step: 'done', recoveryCodes: data.recovery_codes });
              session.setUser({ ...user, mfa_enabled: true });
            })
          }
        >
          <img
            class="qr"
            src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(setup.qrSvg)}`}
            alt="QR code of the authenticator app's secret"
            width={200}
            height={200}
          />
          <p>
            Scan it with the app, or type this key: <code>{setup.secret}</code>
          </p>
          <Field
            label="Code from the app"
            name="code"
            autocomplete="one-time-code"
            inputMode="numeric"
            value={code}
            onInput={setCode}
            error={error}
          />
          <Alert error={error} fields={['code']} />
          <button type="submit" class="primary" disabled={busy}>
            Turn on
          </button>
        </Form>
      )}
      {setup.step === 'done' && (
        <div>
          <Notice>
            {setup.replaced
              ? 'New recovery codes: the earlier ones no longer work.'
              : 'The app is on.'}{' '}
            Keep these recovery codes somewhere safe: each signs in once without the app, and they
            are shown only now.
          </Notice>
          <ul class="recovery-codes">
            {setup.recoveryCodes.map((recovery) => (
              <li key={recovery}>
                <code>{recovery}</code>
              </li>
            ))}
          </ul>
          <a
            download="recovery-codes.txt"
            href={`data:text/plain;charset=utf-8,${encodeURIComponent(`${setup.recoveryCodes.join('\n')}\n`)}`}
          >
            Download the recovery codes
          </a>
        </div>
      )}
      {enabled && (
        <>
          {setup.step !== 'done' && <p>An app is set up: signing in asks for a code of it.</p>}
          <h3>New recovery codes</h3>
          <WithPassword
            label="Make new recovery codes"
            hint="Ten new codes replace the earlier ones, used or not."
            button="Make new codes"
            act={async (password) => {
              setNotice(undefined);
              const { data } = await session.call((api) =>
                api.POST('/auth/mfa/recovery-codes', { body: { current_password: password } }),
              );
              setSetup({ step: 'done', recoveryCodes: data.recovery_codes, replaced: true });
            }}
          />
          <h3>Remove the app</h3>
          <WithPassword
            label="Remove the authenticator app"
            hint="To remove the app set up on this account."
            button="Remove the app"
            act={async (password) => {
              setNotice(undefined);
              await session.call((api) =>
                api.DELETE('/auth/mfa/totp', { body: { current_password: password } }),
              );
              setSetup({ step: 'password' });
              session.setUser({ ...user, mfa_enabled: false });
              setNotice('The authenticator app was removed.');
            }}
          />
        </>
      )}
      {notice && <Notice>{notice}</Notice>}
    </section>
  );
}

/** The account's passkeys: added with the password and the browser's prompt, each removable. */
function Passkeys({ session }: { session: Session }) {
  const list = useLoad(
    async () => (await session.call((api) => api.GET('/auth/passkeys'))).data,
    [],
  );
  const [password, setPassword] = useState('');
  const [notice, setNotice] = useState<string | undefined>();
  const { busy, error, run } = useAction();
  return (
    <section class="panel" aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">Passkeys</h2>
      <p>
        A passkey signs in without the password, with this device's screen lock or a security key.
      </p>
      <Alert error={list.error} />
      {list.data && list.data.length > 0 && (
        <ul class="passkeys">
          {list.data.map((passkey, index) => (
            <li key={passkey.id}>
              <div>
                <strong>Passkey {index + 1}</strong>
                {passkey.backed_up && <span class="badge ok">Synced</span>}
                <div class="hint">
                  {[
                    `added ${formatTime(passkey.created_at)}`,
                    passkey.last_used_at === null
                      ? 'not used yet'
                      : `last used ${formatTime(passkey.last_used_at)}`,
                  ].join(' · ')}
                </div>
              </div>
              <button
                type="button"
                disabled={busy}
                aria-label={`Remove passkey ${index + 1}`}
                onClick={() =>
                  run(async () => {
                    setNotice(undefined);
                    await session.call((api) =>
                      api.DELETE('/auth/passkeys/{id}', { params: { path: { id: passkey.id } } }),
                    );
                    setNotice('The passkey was removed.');
                    list.reload();
                  })
                }
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <Form
        label="Add a passkey"
        onSubmit={() =>
          run(async () => {
            setNotice(undefined);
            const { data: options } = await session.call((api) =>
              api.POST('/auth/passkeys/registration-options', {
                body: { current_password: password },
              }),
            );
            const credential = await createPasskey(options);
            await session.call((api) => api.POST('/auth/passkeys', { body: { credential } }));
            setPassword('');
            setNotice('Passkey added: it signs in from the sign-in page.');
            list.reload();
          })
        }
      >
        <Field
          label="Current password"
          name="current_password"
          type="password"
          autocomplete="current-password"
          hint="To add a passkey to this account."
          value={password}
          onInput={setPassword}
          error={error}
        />
        <Alert error={error} fields={['current_password', 'credential']} />
        {notice && <Notice>{notice}</Notice>}
        <button type="submit" disabled={busy}>
          Add a passkey
        </button>
      </Form>
    </section>
  );
}

/** `Chrome 150 on Linux`, from a user agent by bowser; what a person recognises. */
function deviceName(userAgent: string | null): string {
  if (userAgent === null || userAgent.trim() === '') return 'Unknown device';
  const { browser, os } = Bowser.parse(userAgent);
  const major = browser.version?.split('.')[0];
  // An agent bowser does not know (a script, a CLI) is named by its first product token.
  const name =
    browser.name === 'Mozilla'
      ? browserBehindMozilla(userAgent)
      : browser.name
        ? `${browser.name}${major ? ` ${major}` : ''}`
        : userAgent.trim().split(/\s/)[0]!.slice(0, 40);
  return os.name ? `${name} on ${os.name}` : name;
}

/**
 * Every browser's agent starts with `Mozilla/5.0`, a token kept for compatibility, which bowser
 * gives as the name of a browser it does not know. Such a browser is named by its last product
 * token outside the comments (`Foo/1.2` is `Foo 1`), or as an unknown browser.
 */
function browserBehindMozilla(userAgent: string): string {
  const products = userAgent
    .replace(/\([^)]*\)/g, ' ')
    .split(/\s+/)
    .map((token) => /^([A-Za-z][\w.-]{0,39})\/(\d+)/.exec(token))
    .filter((product) => product !== null && product[1] !== 'Mozilla');
  const last = products.at(-1);
  return last ? `${last[1]} ${last[2]}` : 'Unknown browser';
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** `2 minutes ago`, `yesterday`: how long before `now` a time was. */
function ago(iso: string, now: number): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  const steps: [Intl.RelativeTimeFormatUnit, number][] = [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  for (const [unit, size] of steps) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return 'just now';
}

function Sessions({ session, version }: { session: Session; version: number }) {
  const list = useLoad(
    async () => (await session.call((api) => api.GET('/auth/sessions'))).data,
    [version],
  );
  const [page, setPage] = useState(1);
  const { busy, error, run } = useAction();
  // This browser first, then the most recently used.
  const records: SignedInSession[] = [...(list.data ?? [])].sort(
    (a, b) => Number(b.current) - Number(a.current) || b.last_used_at.localeCompare(a.last_used_at),
  );
  const pages = Math.max(1, Math.ceil(records.length / sessionsPerPage));
  const shown = records.slice((page - 1) * sessionsPerPage, page * sessionsPerPage);
  const now = session.now();
  return (
    <section class="panel" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Where you are signed in</h2>
      <Alert error={list.error ?? error} />
      {list.data && (
        <ul class="sessions">
          {shown.map((record) => {
            const device = deviceName(record.user_agent);
            return (
              <li key={record.id}>
                <div class="session-text">
                  <strong class="device">{device}</strong>
                  {record.current && <span class="badge ok">This browser</span>}
                  <div class="hint">
                    {[
                      record.ip_address,
                      `last used ${ago(record.last_used_at, now)}`,
                      `signed in ${formatTime(record.created_at)}`,
                    ]
                      .filter(Boolean)
                      .join(' · ')}
                  </div>
                  {record.user_agent && (
                    <div class="hint small ua break" title={record.user_agent}>
                      {record.user_agent}
                    </div>
                  )}
                </div>
                <button
                  type="button"
                  disabled={busy}
                  aria-label={`Sign out ${record.current ? 'this browser' : `${device}, last used ${ago(record.last_used_at, now)}`}`}
                  onClick={() =>
                    run(async () => {
                      await session.call((api) =>
                        api.DELETE('/auth/sessions/{id}', { params: { path: { id: record.id } } }),
                      );
                      if (record.current) session.clear();
                      else list.reload();
                    })
                  }
                >
                  Sign out
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {pages > 1 && (
        <nav class="pager" aria-label="Session pages">
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>
            Page {Math.min(page, pages)} of {pages} ({records.length} sessions)
          </span>
          <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      )}
      <button
        type="button"
        class="danger"
        disabled={busy}
        onClick={() =>
          run(async () => {
            await session.call((api) => api.POST('/auth/logout-all'));
            session.clear();
          })
        }
      >
        Sign out everywhere
      </button>
    </section>
  );
}
