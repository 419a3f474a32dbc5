import { useState } from 'preact/hooks';
import type { User } from '../api.js';
import type { Session } from '../session.js';
import { Alert, Field, Form, formatTime, Notice, navigate, useAction, useLoad } from '../ui.js';

/** The account: profile, email and phone changes, password, and where it is signed in. */
export function Account({
  session,
  settingPassword,
}: {
  session: Session;
  settingPassword: boolean;
}) {
  return (
    <main>
      <h1>Account</h1>
      {settingPassword && (
        <Notice>
          Someone else started a signup with your email before you. Choose your own password now: no
          one else can sign in to this account.
        </Notice>
      )}
      <ChangePassword session={session} withoutCurrent={settingPassword} />
      <Profile session={session} />
      <Sessions session={session} />
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
        <Notice>
          Waiting for you to confirm <strong>{user.pending_email}</strong> with the code sent to it.
          Until then you sign in with {user.email}.
        </Notice>
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
            setCurrentPassword('');
            setNotice(
              updated.pending_email
                ? `Saved. Enter the code sent to ${updated.pending_email} to make it your email.`
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
        <Alert error={error} />
        {notice && <Notice>{notice}</Notice>}
        <button type="submit" class="primary" disabled={busy}>
          Save profile
        </button>
      </Form>
    </section>
  );
}

function ChangePassword({
  session,
  withoutCurrent,
}: {
  session: Session;
  withoutCurrent: boolean;
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
        <Alert error={error} />
        {notice && <Notice>{notice}</Notice>}
        <button type="submit" class="primary" disabled={busy}>
          {withoutCurrent ? 'Set password' : 'Change password'}
        </button>
      </Form>
    </section>
  );
}

function Sessions({ session }: { session: Session }) {
  const list = useLoad(
    async () => (await session.call((api) => api.GET('/auth/sessions'))).data,
    [],
  );
  const { busy, error, run } = useAction();
  return (
    <section class="panel" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Where you are signed in</h2>
      <Alert error={list.error ?? error} />
      {list.data && (
        <ul class="sessions">
          {list.data.map((record) => (
            <li key={record.id}>
              <div>
                <strong>{record.user_agent ?? 'Unknown device'}</strong>
                {record.current && <span class="badge ok">This browser</span>}
                <div class="hint">
                  Signed in {formatTime(record.created_at)} · last used{' '}
                  {formatTime(record.last_used_at)}
                  {record.ip_address && ` · ${record.ip_address}`}
                </div>
              </div>
              <button
                type="button"
                disabled={busy}
                aria-label={`Sign out ${record.current ? 'this browser' : (record.user_agent ?? 'this session')}`}
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
          ))}
        </ul>
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
