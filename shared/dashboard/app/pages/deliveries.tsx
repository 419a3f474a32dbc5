import { useState } from 'preact/hooks';
import type { Delivery, DeliveryWithEvent } from '../api.js';
import type { Session } from '../session.js';
import {
  Alert,
  CodeBlock,
  CopyableId,
  CopyButton,
  Field,
  Form,
  formatTime,
  JsonBlock,
  Notice,
  useAction,
  useLoad,
} from '../ui.js';
import { useEventTypes } from './endpoints.js';

/**
 * An endpoint's deliveries: a chart of the last days with the success rate, finding one by id,
 * filters, pages, and each delivery as sent (body, headers) and answered (per attempt), resend,
 * recover.
 */

const perPage = 20;

/** The statuses the list filters by (its select's options). */
const deliveryStatuses: Delivery['status'][] = ['pending', 'delivered', 'failed'];
const dayMs = 86_400_000;
const chartDays = 7;

/** The start of the local day `daysAgo` days before `now`. */
const startOfDay = (now: number, daysAgo: number) => {
  const day = new Date(now);
  day.setHours(0, 0, 0, 0);
  return new Date(day.getTime() - daysAgo * dayMs);
};

/** A `yyyy-mm-dd` of a date input, as the ISO instant its local day starts (or ends). */
const dayBoundary = (value: string, end: boolean) => {
  if (value === '') return undefined;
  const day = new Date(`${value}T00:00:00`);
  return new Date(day.getTime() + (end ? dayMs : 0)).toISOString();
};

type Attempt = Delivery['attempts'][number];

/** The latest attempt's HTTP status, or a dash when none answered. */
const lastStatus = (delivery: Delivery) => delivery.attempts.at(-1)?.response_status ?? '—';

export function Deliveries({
  session,
  endpointId,
  changes,
  initialStatus,
  onChanged,
}: {
  session: Session;
  endpointId: string;
  /** Bumped by the endpoint's own actions (a test event): the list reads again. */
  changes: number;
  /** A status from the page's address to filter by at first; anything else shows them all. */
  initialStatus: string | null;
  /** A delivery was resent or recovered: the endpoint's own state (failing since) may change. */
  onChanged: () => void;
}) {
  const [status, setStatus] = useState<Delivery['status'] | ''>(
    () => deliveryStatuses.find((known) => known === initialStatus) ?? '',
  );
  const [eventType, setEventType] = useState<Delivery['event_type'] | ''>('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string | undefined>();
  // Bumped by Refresh, a resend and a recovery: the chart reads the deliveries again too.
  const [version, setVersion] = useState(0);
  const types = useEventTypes();
  const query = {
    page,
    per_page: perPage,
    status: status === '' ? undefined : status,
    event_type: eventType === '' ? undefined : eventType,
    created_after: dayBoundary(from, false),
    created_before: dayBoundary(to, true),
  };
  const list = useLoad(
    () =>
      session.call((api) =>
        api.GET('/webhooks/{id}/deliveries', { params: { path: { id: endpointId }, query } }),
      ),
    [endpointId, JSON.stringify(query), version, changes],
  );
  const reload = () => setVersion((value) => value + 1);
  const changed = () => {
    reload();
    onChanged();
  };
  const total = list.data?.meta?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / perPage));
  const filter =
    <Value,>(set: (value: Value) => void) =>
    (value: Value) => {
      set(value);
      setPage(1);
    };
  return (
    <section aria-labelledby="deliveries-title">
      <div class="title-row">
        <h2 id="deliveries-title">Deliveries</h2>
        <button type="button" onClick={changed}>
          Refresh
        </button>
      </div>
      <DeliveryChart session={session} endpointId={endpointId} version={version + changes} />
      <FindDelivery
        session={session}
        endpointId={endpointId}
        version={version + changes}
        onChanged={changed}
      />
      <fieldset class="filters">
        <legend class="visually-hidden">Filter deliveries</legend>
        <div class="field">
          <label for="filter-status">Status</label>
          <select
            id="filter-status"
            value={status}
            onChange={(event) =>
              filter(setStatus)(event.currentTarget.value as Delivery['status'] | '')
            }
          >
            <option value="">Any</option>
            <option value="pending">Pending</option>
            <option value="delivered">Delivered</option>
            <option value="failed">Failed</option>
          </select>
        </div>
        <div class="field">
          <label for="filter-type">Event type</label>
          <select
            id="filter-type"
            value={eventType}
            onChange={(event) =>
              filter(setEventType)(event.currentTarget.value as Delivery['event_type'] | '')
            }
          >
            <option value="">Any</option>
            {(types.data ?? []).map((type) => (
              <option key={type.type} value={type.type}>
                {type.type}
              </option>
            ))}
            <option value="webhook.test">webhook.test</option>
          </select>
        </div>
        <Field label="From" name="from" type="date" value={from} onInput={filter(setFrom)} />
        <Field label="To" name="to" type="date" value={to} onInput={filter(setTo)} />
      </fieldset>
      <Alert error={list.error} />
      {list.data?.data.length === 0 && <p>No deliveries match.</p>}
      {list.data && list.data.data.length > 0 && (
        <div class="table-wrap">
          <table class="cards deliveries">
            <caption class="visually-hidden">Deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">HTTP</th>
                <th scope="col">Attempts</th>
                <th scope="col">Next attempt</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((delivery) => (
                <DeliveryRow
                  key={delivery.id}
                  delivery={delivery}
                  open={open === delivery.id}
                  onToggle={() => setOpen(open === delivery.id ? undefined : delivery.id)}
                  session={session}
                  endpointId={endpointId}
                  version={version + changes}
                  onChanged={changed}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label="Delivery pages">
        <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
          Previous
        </button>
        <span>
          Page {page} of {pages} ({total} {total === 1 ? 'delivery' : 'deliveries'})
        </span>
        <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
          Next
        </button>
      </nav>
      <Recover session={session} endpointId={endpointId} onRecovered={changed} />
    </section>
  );
}

const statusLabel = (delivery: Delivery) =>
  delivery.paused ? 'Paused' : delivery.status[0]!.toUpperCase() + delivery.status.slice(1);

function DeliveryRow({
  delivery,
  open,
  onToggle,
  session,
  endpointId,
  version,
  onChanged,
}: {
  delivery: Delivery;
  open: boolean;
  onToggle: () => void;
  session: Session;
  endpointId: string;
  version: number;
  onChanged: () => void;
}) {
  return (
    <>
      <tr>
        <td data-label="Created">
          <button
            type="button"
            class="link"
            aria-expanded={open}
            aria-controls={`delivery-${delivery.id}`}
            onClick={onToggle}
          >
            {formatTime(delivery.created_at)}
          </button>
        </td>
        <td data-label="Event" class="mono">
          {delivery.event_type}
        </td>
        <td data-label="Status">
          <span class={`badge ${delivery.status}`}>{statusLabel(delivery)}</span>
        </td>
        <td data-label="HTTP" class="http-status">
          {lastStatus(delivery)}
        </td>
        <td data-label="Attempts">{delivery.attempts_made}</td>
        <td data-label="Next attempt">{formatTime(delivery.next_attempt_at)}</td>
      </tr>
      {open && (
        <tr id={`delivery-${delivery.id}`} class="details-row">
          <td colSpan={6}>
            <DeliveryDetails
              session={session}
              endpointId={endpointId}
              deliveryId={delivery.id}
              version={version}
              onChanged={onChanged}
            />
          </td>
        </tr>
      )}
    </>
  );
}

/** Finds one delivery by its id, or by its event's id, and shows it. */
function FindDelivery({
  session,
  endpointId,
  version,
  onChanged,
}: {
  session: Session;
  endpointId: string;
  version: number;
  onChanged: () => void;
}) {
  const [wanted, setWanted] = useState('');
  const [found, setFound] = useState<string | undefined>();
  return (
    <section class="panel find" aria-labelledby="find-title">
      <h3 id="find-title">Find a delivery</h3>
      <Form label="Find a delivery" onSubmit={() => setFound(wanted.trim() || undefined)}>
        <div class="inline-form">
          <Field
            label="Delivery or event id"
            name="delivery_id"
            placeholder="dlv_… or evt_…"
            value={wanted}
            onInput={setWanted}
          />
          <button type="submit">Find</button>
        </div>
      </Form>
      {found !== undefined && (
        <DeliveryDetails
          key={found}
          session={session}
          endpointId={endpointId}
          deliveryId={found}
          version={version}
          onChanged={onChanged}
        />
      )}
    </section>
  );
}

/** What one delivery sent and what came back, attempt by attempt; resend it. */
function DeliveryDetails({
  session,
  endpointId,
  deliveryId,
  version,
  onChanged,
}: {
  session: Session;
  endpointId: string;
  /** Its id, or its event's. */
  deliveryId: string;
  version: number;
  onChanged: () => void;
}) {
  const [resent, setResent] = useState(0);
  const one = useLoad(
    async () =>
      (
        await session.call((api) =>
          api.GET('/webhooks/{id}/deliveries/{delivery_id}', {
            params: { path: { id: endpointId, delivery_id: deliveryId } },
          }),
        )
      ).data,
    [endpointId, deliveryId, version, resent],
  );
  const { busy, error, run } = useAction();
  const delivery: DeliveryWithEvent | undefined = one.data;
  if (delivery === undefined) {
    return one.loading ? <p>Loading…</p> : <Alert error={one.error} />;
  }
  const latest = delivery.attempts.at(-1);
  return (
    <section class="delivery" aria-label={`Delivery ${delivery.id}`}>
      <dl class="facts">
        <dt>Delivery id</dt>
        <dd>
          <CopyableId name="delivery id" id={delivery.id} />
        </dd>
        <dt>Event id</dt>
        <dd>
          <CopyableId name="event id" id={delivery.event_id} />
        </dd>
        <dt>Status</dt>
        <dd>
          <span class={`badge ${delivery.status}`}>{statusLabel(delivery)}</span>
        </dd>
      </dl>
      <div class="title-row">
        <h4>Request body</h4>
        {delivery.event && (
          <CopyButton
            text={JSON.stringify(delivery.event, null, 2)}
            label={`Copy the request body of ${delivery.id}`}
          />
        )}
      </div>
      {delivery.event ? (
        <JsonBlock value={delivery.event} label={`Request body of ${delivery.id}`} />
      ) : (
        <p>The event has expired (events are kept 30 days).</p>
      )}
      <h4>Headers sent{latest ? ` (attempt ${latest.attempt})` : ''}</h4>
      {latest?.request_headers ? (
        <HeaderList headers={latest.request_headers} label="Headers sent" />
      ) : (
        <p>{latest ? 'Not recorded for this attempt.' : 'No attempt yet.'}</p>
      )}
      <h4>Attempts</h4>
      {delivery.attempts.length === 0 ? (
        <p>No attempt yet.</p>
      ) : (
        <ol class="attempts" reversed>
          {[...delivery.attempts].reverse().map((attempt) => (
            <AttemptItem key={attempt.attempt} attempt={attempt} />
          ))}
        </ol>
      )}
      {resent > 0 && <Notice>Sent again: its next attempt is on its way.</Notice>}
      {delivery.status !== 'pending' && (
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            run(async () => {
              await session.call((api) =>
                api.POST('/webhooks/{id}/deliveries/{delivery_id}/retry', {
                  params: { path: { id: endpointId, delivery_id: delivery.id } },
                }),
              );
              setResent((value) => value + 1);
              onChanged();
            })
          }
        >
          Resend
        </button>
      )}
      <Alert error={error} />
    </section>
  );
}

function AttemptItem({ attempt }: { attempt: Attempt }) {
  return (
    <li class={`attempt ${attempt.outcome}`}>
      <p class="attempt-summary">
        <strong>Attempt {attempt.attempt}</strong> · {formatTime(attempt.attempted_at)} ·{' '}
        {attempt.outcome} · HTTP {attempt.response_status ?? '—'} · {attempt.latency_ms} ms
      </p>
      {attempt.error && (
        <p class="attempt-error">
          Error: <span class="mono break">{attempt.error}</span>
        </p>
      )}
      {attempt.response_headers && (
        <>
          <h5>Response headers</h5>
          <HeaderList
            headers={attempt.response_headers}
            label={`Response headers of attempt ${attempt.attempt}`}
          />
        </>
      )}
      <h5>Response body (first KiB)</h5>
      {attempt.response_body ? (
        <CodeBlock label={`Response body of attempt ${attempt.attempt}`}>
          {attempt.response_body}
        </CodeBlock>
      ) : (
        <p>None.</p>
      )}
    </li>
  );
}

function HeaderList({ headers, label }: { headers: Record<string, string>; label: string }) {
  return (
    <figure class="headers" aria-label={label}>
      <dl class="headers mono small">
        {Object.entries(headers).map(([name, value]) => (
          <div key={name}>
            <dt>{name}:</dt> <dd class="break">{value}</dd>
          </div>
        ))}
      </dl>
    </figure>
  );
}

/**
 * Successes and failures per day over the last week, counted on the service's clock, with the
 * week's success rate: an outage shows at a glance.
 */
function DeliveryChart({
  session,
  endpointId,
  version,
}: {
  session: Session;
  endpointId: string;
  version: number;
}) {
  const days = useLoad(async () => {
    const since = startOfDay(session.now(), chartDays - 1);
    const counts = Array.from({ length: chartDays }, (_, index) => ({
      day: new Date(since.getTime() + index * dayMs),
      delivered: 0,
      failed: 0,
    }));
    // At most five pages of the newest 500 deliveries: enough for the picture, bounded in calls.
    for (let page = 1; page <= 5; page++) {
      const { data, meta } = await session.call((api) =>
        api.GET('/webhooks/{id}/deliveries', {
          params: {
            path: { id: endpointId },
            query: { page, per_page: 100, created_after: since.toISOString() },
          },
        }),
      );
      for (const delivery of data) {
        const index = Math.floor((Date.parse(delivery.created_at) - since.getTime()) / dayMs);
        const slot = counts[index];
        if (slot !== undefined && delivery.status !== 'pending') slot[delivery.status]++;
      }
      if (page * 100 >= meta.total) break;
    }
    return counts;
  }, [endpointId, version]);
  if (days.data === undefined) return <Alert error={days.error} />;
  const peak = Math.max(1, ...days.data.map((day) => Math.max(day.delivered, day.failed)));
  const delivered = days.data.reduce((sum, day) => sum + day.delivered, 0);
  const failed = days.data.reduce((sum, day) => sum + day.failed, 0);
  const finished = delivered + failed;
  const rate =
    finished === 0
      ? 'no finished deliveries'
      : `${Math.round((delivered / finished) * 1000) / 10}% delivered (${delivered} of ${finished})`;
  const slot = 100;
  const bar = 36;
  const height = 120;
  const top = 16;
  const label = (day: Date) => day.toLocaleDateString(undefined, { weekday: 'short' });
  return (
    <figure class="chart">
      <figcaption>
        <strong>
          Success rate, last {chartDays} days: {rate}
        </strong>
        <span class="chart-key">
          <span class="key-ok">■ {delivered} delivered</span>{' '}
          <span class="key-failed">■ {failed} failed</span>
        </span>
      </figcaption>
      <svg
        viewBox={`0 0 ${chartDays * slot} ${top + height + 20}`}
        role="img"
        aria-label={`Last ${chartDays} days: ${delivered} delivered, ${failed} failed`}
      >
        {days.data.map((day, index) => {
          const x = index * slot + (slot - 2 * bar) / 2;
          const ok = (day.delivered / peak) * height;
          const bad = (day.failed / peak) * height;
          return (
            <g key={day.day.toISOString()}>
              <rect class="bar-ok" x={x} y={top + height - ok} width={bar} height={ok} />
              <rect
                class="bar-failed"
                x={x + bar}
                y={top + height - bad}
                width={bar}
                height={bad}
              />
              {day.delivered > 0 && (
                <text class="count" x={x + bar / 2} y={top + height - ok - 3} text-anchor="middle">
                  {day.delivered}
                </text>
              )}
              {day.failed > 0 && (
                <text
                  class="count"
                  x={x + bar * 1.5}
                  y={top + height - bad - 3}
                  text-anchor="middle"
                >
                  {day.failed}
                </text>
              )}
              <text x={index * slot + slot / 2} y={top + height + 16} text-anchor="middle">
                {label(day.day)}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

function Recover({
  session,
  endpointId,
  onRecovered,
}: {
  session: Session;
  endpointId: string;
  onRecovered: () => void;
}) {
  const [since, setSince] = useState('');
  const [result, setResult] = useState<string | undefined>();
  const { busy, error, run } = useAction();
  return (
    <section class="panel" aria-labelledby="recover-title">
      <h3 id="recover-title">Recover failed deliveries</h3>
      <p>Sends every delivery that failed since a time again, with a fresh retry ladder.</p>
      <Form
        label="Recover failed deliveries"
        onSubmit={() =>
          run(async () => {
            setResult(undefined);
            const at = since === '' ? '' : new Date(since).toISOString();
            const { data } = await session.call((api) =>
              api.POST('/webhooks/{id}/recover', {
                params: { path: { id: endpointId } },
                body: { since: at },
              }),
            );
            setResult(
              `${data.recovered} failed ${data.recovered === 1 ? 'delivery' : 'deliveries'} queued again.` +
                (data.has_more ? ' More remain: recover again to queue the next ones.' : ''),
            );
            onRecovered();
          })
        }
      >
        <Field
          label="Failed since"
          name="since"
          type="datetime-local"
          value={since}
          onInput={setSince}
          error={error}
        />
        <Alert error={error} fields={['since']} />
        <button type="submit" disabled={busy}>
          Recover
        </button>
      </Form>
      {result && <Notice>{result}</Notice>}
    </section>
  );
}
