import { useState } from 'preact/hooks';
import type { Endpoint, RotatedEndpoint } from '../api.js';
import type { Session } from '../session.js';
import {
  Alert,
  Field,
  Form,
  formatTime,
  Notice,
  navigate,
  SecretReveal,
  useAction,
  useLoad,
} from '../ui.js';
import { Deliveries } from './deliveries.js';
import { EventPicker, StatusBadge } from './endpoints.js';

/** One endpoint: its settings and actions, then its deliveries. */
export function EndpointPage({
  session,
  id,
  status,
}: {
  session: Session;
  id: string;
  /** The status the deliveries list starts filtered by (from the address). */
  status: string | null;
}) {
  const params = { path: { id } };
  const endpoint = useLoad(
    async () => (await session.call((api) => api.GET('/webhooks/{id}', { params }))).data,
    [id],
  );
  const [editing, setEditing] = useState(false);
  const [rotated, setRotated] = useState<RotatedEndpoint | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [changes, setChanges] = useState(0);
  const { busy, error, run } = useAction();
  const current = endpoint.data;
  if (current === undefined) {
    return (
      <main>
        <p>
          <a href="#/endpoints">← Endpoints</a>
        </p>
        {endpoint.loading ? <p>Loading…</p> : <Alert error={endpoint.error} />}
      </main>
    );
  }
  const act = (message: string, action: () => Promise<void>) =>
    run(async () => {
      setNotice(undefined);
      await action();
      setNotice(message);
      setChanges((value) => value + 1);
      endpoint.reload();
    });
  const enabled = current.status === 'enabled';
  return (
    <main>
      <p>
        <a href="#/endpoints">← Endpoints</a>
      </p>
      <div class="title-row">
        <h1 class="mono break">{current.url}</h1>
        <StatusBadge endpoint={current} />
      </div>
      <dl class="facts">
        <dt>Events</dt>
        <dd>{current.events.join(', ')}</dd>
        <dt>Description</dt>
        <dd>{current.description || '—'}</dd>
        <dt>Created</dt>
        <dd>{formatTime(current.created_at)}</dd>
        {current.failing_since && (
          <>
            <dt>Failing since</dt>
            <dd>{formatTime(current.failing_since)}</dd>
          </>
        )}
      </dl>
      <div class="actions">
        <button
          type="button"
          disabled={busy || !enabled}
          onClick={() =>
            act('Test event sent. Its delivery is listed below.', async () => {
              await session.call((api) => api.POST('/webhooks/{id}/test', { params }));
            })
          }
        >
          Send test event
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            act(enabled ? 'Endpoint disabled.' : 'Endpoint enabled.', async () => {
              await session.call((api) =>
                api.PATCH('/webhooks/{id}', {
                  params,
                  body: { status: enabled ? 'disabled' : 'enabled' },
                }),
              );
            })
          }
        >
          {enabled ? 'Disable' : 'Enable'}
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            run(async () => {
              const { data } = await session.call((api) =>
                api.POST('/webhooks/{id}/rotate-secret', { params }),
              );
              setRotated(data);
              setNotice(undefined);
            })
          }
        >
          Rotate secret
        </button>
        <button type="button" disabled={busy} onClick={() => setEditing(!editing)}>
          Edit
        </button>
        <button
          type="button"
          class="danger"
          disabled={busy}
          onClick={() => setConfirmingDelete(true)}
        >
          Delete
        </button>
      </div>
      {notice && <Notice>{notice}</Notice>}
      <Alert error={error} />
      {rotated && (
        <SecretReveal secret={rotated.secret}>
          This new secret is shown only once. The previous one keeps signing deliveries until{' '}
          {formatTime(rotated.previous_secret_expires_at)}, so update your receiver before then.
        </SecretReveal>
      )}
      {confirmingDelete && (
        <section class="panel danger-zone" aria-labelledby="delete-title">
          <h2 id="delete-title">Delete this endpoint?</h2>
          <p>Deliveries stop at once, and its history is deleted. This cannot be undone.</p>
          <div class="actions">
            <button
              type="button"
              class="danger"
              disabled={busy}
              onClick={() =>
                run(async () => {
                  await session.call((api) => api.DELETE('/webhooks/{id}', { params }));
                  navigate('#/endpoints');
                })
              }
            >
              Delete endpoint
            </button>
            <button type="button" onClick={() => setConfirmingDelete(false)}>
              Keep it
            </button>
          </div>
        </section>
      )}
      {editing && (
        <EditEndpoint
          session={session}
          endpoint={current}
          onDone={() => {
            setEditing(false);
            setNotice('Endpoint saved.');
            endpoint.reload();
          }}
        />
      )}
      <Deliveries session={session} endpointId={id} changes={changes} initialStatus={status} />
    </main>
  );
}

function EditEndpoint({
  session,
  endpoint,
  onDone,
}: {
  session: Session;
  endpoint: Endpoint;
  onDone: () => void;
}) {
  const [url, setUrl] = useState(endpoint.url);
  const [events, setEvents] = useState(endpoint.events);
  const [description, setDescription] = useState(endpoint.description ?? '');
  const { busy, error, run } = useAction();
  return (
    <section class="panel" aria-labelledby="edit-title">
      <h2 id="edit-title">Edit endpoint</h2>
      <Form
        label="Edit endpoint"
        onSubmit={() =>
          run(async () => {
            await session.call((api) =>
              api.PATCH('/webhooks/{id}', {
                params: { path: { id: endpoint.id } },
                body: { url, events, description },
              }),
            );
            onDone();
          })
        }
      >
        <Field
          label="Endpoint URL"
          name="url"
          type="url"
          value={url}
          onInput={setUrl}
          error={error}
        />
        <EventPicker selected={events} onChange={setEvents} error={error} />
        <Field
          label="Description"
          name="description"
          value={description}
          onInput={setDescription}
          error={error}
        />
        <Alert error={error} />
        <button type="submit" class="primary" disabled={busy}>
          Save
        </button>
      </Form>
    </section>
  );
}
