import { useState } from 'preact/hooks';
import { type ApiError, dataOf } from '../../../http/client/api-client.js';
import { api, type Endpoint, type EndpointWithSecret, type EventType, localInbox } from '../api.js';
import type { Session } from '../session.js';
import {
  Alert,
  Field,
  Form,
  fieldProblem,
  formatTime,
  InlineMarkdown,
  SecretReveal,
  useAction,
  useLoad,
  useReturnFocus,
} from '../ui.js';

/** The caller's webhook endpoints, and registering a new one. */

export function StatusBadge({ endpoint }: { endpoint: Endpoint }) {
  if (endpoint.status === 'enabled') return <span class="badge ok">Enabled</span>;
  return (
    <span class="badge off">
      {endpoint.disabled_reason === 'failing' ? 'Disabled: failing' : 'Disabled'}
    </span>
  );
}

/** The subscribable event types, for pickers. */
export function useEventTypes() {
  return useLoad(
    () => dataOf(api.GET('/event-types', { params: { query: { per_page: 100 } } })),
    [],
  );
}

export function EventPicker({
  selected,
  onChange,
  error,
}: {
  selected: EventType['type'][];
  onChange: (events: EventType['type'][]) => void;
  error?: ApiError | undefined;
}) {
  const types = useEventTypes();
  const problem = fieldProblem(error, 'events', 'Events');
  return (
    <fieldset class="events" aria-describedby={problem ? 'events-error' : undefined}>
      <legend>Events</legend>
      {types.error && <Alert error={types.error} />}
      {(types.data ?? []).map((type) => (
        <label key={type.type} class="check">
          <input
            type="checkbox"
            name="events"
            value={type.type}
            checked={selected.includes(type.type)}
            onChange={(event) =>
              onChange(
                event.currentTarget.checked
                  ? [...selected, type.type]
                  : selected.filter((name) => name !== type.type),
              )
            }
          />
          <span>
            <span class="mono">{type.type}</span>{' '}
            <span class="hint">
              <InlineMarkdown text={type.description} />
            </span>
          </span>
        </label>
      ))}
      {problem && (
        <span class="field-error" id="events-error">
          {problem}
        </span>
      )}
    </fieldset>
  );
}

export function Endpoints({ session }: { session: Session }) {
  const list = useLoad(
    async () =>
      (await session.call((api) => api.GET('/webhooks', { params: { query: { per_page: 100 } } })))
        .data,
    [],
  );
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<EndpointWithSecret | undefined>();
  const addButton = useReturnFocus();
  return (
    <main>
      <div class="title-row">
        <h1>Webhook endpoints</h1>
        {!adding && (
          <button
            type="button"
            class="primary"
            ref={addButton.opener}
            onClick={() => setAdding(true)}
          >
            Add endpoint
          </button>
        )}
      </div>
      {created?.secret && (
        <SecretReveal secret={created.secret}>
          Copy the signing secret of <span class="mono">{created.url}</span> now: it is shown only
          once. Your receiver checks every delivery's signature with it.
        </SecretReveal>
      )}
      {adding && (
        <RegisterEndpoint
          session={session}
          onCancel={() => {
            setAdding(false);
            addButton.returnFocus();
          }}
          onCreated={(endpoint) => {
            setCreated(endpoint);
            setAdding(false);
            list.reload();
          }}
        />
      )}
      <Alert error={list.error} />
      {list.data?.length === 0 && !adding && (
        <p>No endpoints yet. Add one to receive order, delivery and payment events.</p>
      )}
      {list.data && list.data.length > 0 && (
        <div class="table-wrap">
          <table class="cards">
            <caption class="visually-hidden">Your webhook endpoints</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Status</th>
                <th scope="col">Events</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((endpoint) => (
                <tr key={endpoint.id}>
                  <td data-label="URL">
                    <a class="mono break" href={`#/endpoints/${endpoint.id}`}>
                      {endpoint.url}
                    </a>
                  </td>
                  <td data-label="Status">
                    <StatusBadge endpoint={endpoint} />
                  </td>
                  <td data-label="Events">{endpoint.events.join(', ')}</td>
                  <td data-label="Created">{formatTime(endpoint.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </main>
  );
}

function RegisterEndpoint({
  session,
  onCreated,
  onCancel,
}: {
  session: Session;
  onCreated: (endpoint: EndpointWithSecret) => void;
  onCancel: () => void;
}) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventType['type'][]>([]);
  const [description, setDescription] = useState('');
  const { busy, error, run } = useAction();
  return (
    <section class="panel" aria-labelledby="register-title">
      <h2 id="register-title">Add an endpoint</h2>
      <Form
        label="Add an endpoint"
        focusFirst
        onEscape={onCancel}
        onSubmit={() =>
          run(async () => {
            const body = description === '' ? { url, events } : { url, events, description };
            onCreated((await session.call((api) => api.POST('/webhooks', { body }))).data);
          })
        }
      >
        <Field
          label="Endpoint URL"
          name="url"
          type="url"
          placeholder="https://example.com/webhooks"
          hint={
            localInbox === undefined
              ? 'An https URL your server answers with a 2xx.'
              : `An https URL your server answers with a 2xx. Locally, try ${localInbox}demo.`
          }
          value={url}
          onInput={setUrl}
          error={error}
        />
        <EventPicker selected={events} onChange={setEvents} error={error} />
        <Field
          label="Description (optional)"
          name="description"
          value={description}
          onInput={setDescription}
          error={error}
        />
        <Alert error={error} fields={['url', 'events', 'description']} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Add endpoint
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </Form>
    </section>
  );
}
