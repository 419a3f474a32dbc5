import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { type Endpoint, type EventType, localInbox, type RotatedEndpoint } from '../api.js';
import type { Session } from '../session.js';
import {
  Alert,
  CopyableId,
  Field,
  Form,
  formatTime,
  Notice,
  navigate,
  SecretReveal,
  useAction,
  useLoad,
  useReturnFocus,
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
  const [confirming, setConfirming] = useState<'delete' | 'rotate' | undefined>();
  const [exampleType, setExampleType] = useState<EventType['type'] | ''>('');
  const [changes, setChanges] = useState(0);
  const { busy, error, run } = useAction();
  // Closing a question or the edit form unanswered, or the form once saved, puts the focus back
  // on its button (the notice says what was saved).
  const rotateButton = useReturnFocus();
  const editButton = useReturnFocus();
  const deleteButton = useReturnFocus();
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
        <dt>Endpoint id</dt>
        <dd>
          <CopyableId name="endpoint id" id={current.id} />
        </dd>
        <dt>Created</dt>
        <dd>{formatTime(current.created_at)}</dd>
        {current.failing_since && (
          <>
            <dt>Failing since</dt>
            <dd>{formatTime(current.failing_since)}</dd>
          </>
        )}
      </dl>
      {localInbox !== undefined && current.url.startsWith(localInbox) && (
        <p>
          <a href={`/_local/inbox/${encodeURIComponent(current.url.slice(localInbox.length))}`}>
            Open this local inbox
          </a>{' '}
          to see what arrived there and whether its signatures verify.
        </p>
      )}
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
          ref={rotateButton.opener}
          disabled={busy}
          onClick={() => setConfirming('rotate')}
        >
          Rotate secret
        </button>
        <button
          type="button"
          ref={editButton.opener}
          disabled={busy}
          onClick={() => setEditing(!editing)}
        >
          Edit
        </button>
        <button
          type="button"
          class="danger"
          ref={deleteButton.opener}
          disabled={busy}
          onClick={() => setConfirming('delete')}
        >
          Delete
        </button>
      </div>
      <Form
        label="Send an example event"
        onSubmit={() => {
          if (exampleType === '') return;
          void act(`Example ${exampleType} event sent. Its delivery is listed below.`, async () => {
            await session.call((api) =>
              api.POST('/webhooks/{id}/test', {
                params: { ...params, query: { event_type: exampleType } },
              }),
            );
          });
        }}
      >
        <div class="inline-form">
          <div class="field">
            <label for="example-type">Example of a subscribed type</label>
            <select
              id="example-type"
              value={exampleType}
              onChange={(event) =>
                setExampleType(event.currentTarget.value as EventType['type'] | '')
              }
            >
              <option value="">Choose a type</option>
              {current.events.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" disabled={busy || !enabled || exampleType === ''}>
            Send example
          </button>
        </div>
      </Form>
      {notice && <Notice>{notice}</Notice>}
      <Alert error={error} />
      {rotated && (
        <SecretReveal secret={rotated.secret}>
          This new secret is shown only once. The previous one keeps signing deliveries until{' '}
          {formatTime(rotated.previous_secret_expires_at)}, so update your receiver before then.
        </SecretReveal>
      )}
      {confirming === 'rotate' && (
        <Confirm
          title="Rotate the signing secret?"
          confirm="Yes, rotate the secret"
          busy={busy}
          onCancel={() => {
            setConfirming(undefined);
            rotateButton.returnFocus();
          }}
          onConfirm={() =>
            run(async () => {
              const { data } = await session.call((api) =>
                api.POST('/webhooks/{id}/rotate-secret', { params }),
              );
              setConfirming(undefined);
              setRotated(data);
              setNotice(undefined);
            })
          }
        >
          A new secret signs every delivery from now on; the current one keeps signing beside it for
          24 hours, then stops. Your receiver needs the new one before then.
        </Confirm>
      )}
      {confirming === 'delete' && (
        <Confirm
          title="Delete this endpoint?"
          confirm="Delete endpoint"
          busy={busy}
          onCancel={() => {
            setConfirming(undefined);
            deleteButton.returnFocus();
          }}
          onConfirm={() =>
            run(async () => {
              await session.call((api) => api.DELETE('/webhooks/{id}', { params }));
              navigate('#/endpoints');
            })
          }
        >
          Deliveries stop at once, and its history is deleted. This cannot be undone.
        </Confirm>
      )}
      {editing && (
        <EditEndpoint
          session={session}
          endpoint={current}
          onCancel={() => {
            setEditing(false);
            editButton.returnFocus();
          }}
          onDone={() => {
            setEditing(false);
            setNotice('Endpoint saved.');
            editButton.returnFocus();
            endpoint.reload();
          }}
        />
      )}
      <Deliveries
        session={session}
        endpointId={id}
        changes={changes}
        initialStatus={status}
        onChanged={endpoint.reload}
      />
    </main>
  );
}

/** A question before an action that cannot be taken back: the focus goes to its answer. */
function Confirm({
  title,
  confirm,
  busy,
  onConfirm,
  onCancel,
  children,
}: {
  title: string;
  confirm: string;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  children: ComponentChildren;
}) {
  const id = useId();
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => cancel.current?.focus(), []);
  return (
    <section
      class="panel danger-zone"
      aria-labelledby={id}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onCancel();
      }}
    >
      <h2 id={id}>{title}</h2>
      <p>{children}</p>
      <div class="actions">
        <button type="button" class="danger" disabled={busy} onClick={onConfirm}>
          {confirm}
        </button>
        <button type="button" ref={cancel} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
}

function EditEndpoint({
  session,
  endpoint,
  onDone,
  onCancel,
}: {
  session: Session;
  endpoint: Endpoint;
  onDone: () => void;
  onCancel: () => void;
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
        focusFirst
        onEscape={onCancel}
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
        <Alert error={error} fields={['url', 'events', 'description']} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Save
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </Form>
    </section>
  );
}
