import { useState } from 'preact/hooks';
import type { Delivery } from '../api.js';
import type { Session } from '../session.js';
import { Alert, Field, Form, formatTime, Notice, useAction, useLoad } from '../ui.js';
import { useEventTypes } from './endpoints.js';

/** An endpoint's deliveries: a chart of the last days, filters, pages, attempts, retry, recover. */

const perPage = 20;

/** The statuses the list filters by (its select's options). */
const deliveryStatuses: Delivery['status'][] = ['pending', 'delivered', 'failed'];
const dayMs = 86_400_000;
const chartDays = 7;

/** The start of the local day `daysAgo` days before today, as an ISO instant. */
const startOfDay = (daysAgo: number) => {
  const day = new Date();
  day.setHours(0, 0, 0, 0);
  return new Date(day.getTime() - daysAgo * dayMs);
};

/** A `yyyy-mm-dd` of a date input, as the ISO instant its local day starts (or ends). */
const dayBoundary = (value: string, end: boolean) => {
  if (value === '') return undefined;
  const day = new Date(`${value}T00:00:00`);
  return new Date(day.getTime() + (end ? dayMs : 0)).toISOString();
};

export function Deliveries({
  session,
  endpointId,
  changes,
  initialStatus,
}: {
  session: Session;
  endpointId: string;
  /** Bumped by the endpoint's own actions (a test event): the list reads again. */
  changes: number;
  /** A status from the page's address to filter by at first; anything else shows them all. */
  initialStatus: string | null;
}) {
  const [status, setStatus] = useState<Delivery['status'] | ''>(
    () => deliveryStatuses.find((known) => known === initialStatus) ?? '',
  );
  const [eventType, setEventType] = useState<Delivery['event_type'] | ''>('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string | undefined>();
  // Bumped by Refresh, a retry and a recovery: the chart reads the deliveries again too.
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
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </div>
      <DeliveryChart session={session} endpointId={endpointId} version={version + changes} />
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
          <table>
            <caption class="visually-hidden">Deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
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
                  onChanged={reload}
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
      <Recover session={session} endpointId={endpointId} onRecovered={reload} />
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
  onChanged,
}: {
  delivery: Delivery;
  open: boolean;
  onToggle: () => void;
  session: Session;
  endpointId: string;
  onChanged: () => void;
}) {
  const { busy, error, run } = useAction();
  return (
    <>
      <tr>
        <td>
          <button
            type="button"
            class="link"
            aria-expanded={open}
            aria-controls={`attempts-${delivery.id}`}
            onClick={onToggle}
          >
            {formatTime(delivery.created_at)}
          </button>
        </td>
        <td class="mono">{delivery.event_type}</td>
        <td>
          <span class={`badge ${delivery.status}`}>{statusLabel(delivery)}</span>
        </td>
        <td>{delivery.attempts_made}</td>
        <td>{formatTime(delivery.next_attempt_at)}</td>
      </tr>
      {open && (
        <tr id={`attempts-${delivery.id}`}>
          <td colSpan={5}>
            <p class="mono small">
              Delivery {delivery.id} · event {delivery.event_id}
            </p>
            {delivery.attempts.length === 0 ? (
              <p>No attempt yet.</p>
            ) : (
              <table class="attempts">
                <caption>Attempts</caption>
                <thead>
                  <tr>
                    <th scope="col">#</th>
                    <th scope="col">Time</th>
                    <th scope="col">Outcome</th>
                    <th scope="col">HTTP status</th>
                    <th scope="col">Latency</th>
                    <th scope="col">Response or error</th>
                  </tr>
                </thead>
                <tbody>
                  {delivery.attempts.map((attempt) => (
                    <tr key={attempt.attempt}>
                      <td>{attempt.attempt}</td>
                      <td>{formatTime(attempt.attempted_at)}</td>
                      <td>{attempt.outcome}</td>
                      <td>{attempt.response_status ?? '—'}</td>
                      <td>{attempt.latency_ms} ms</td>
                      <td class="mono small break">
                        {attempt.error ?? attempt.response_body ?? '—'}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {delivery.status === 'failed' && (
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
                    onChanged();
                  })
                }
              >
                Retry this delivery
              </button>
            )}
            <Alert error={error} />
          </td>
        </tr>
      )}
    </>
  );
}

/** Successes and failures per day over the last week: an outage shows at a glance. */
function DeliveryChart({
  session,
  endpointId,
  version,
}: {
  session: Session;
  endpointId: string;
  version: number;
}) {
  const since = startOfDay(chartDays - 1);
  const days = useLoad(async () => {
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
  const width = 28;
  const height = 80;
  const label = (day: Date) => day.toLocaleDateString(undefined, { weekday: 'short' });
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${chartDays * width * 2 + 8} ${height + 20}`}
        role="img"
        aria-label={`Last ${chartDays} days: ${delivered} delivered, ${failed} failed`}
      >
        {days.data.map((day, index) => {
          const x = 4 + index * width * 2;
          const ok = (day.delivered / peak) * height;
          const bad = (day.failed / peak) * height;
          return (
            <g key={day.day.toISOString()}>
              <rect class="bar-ok" x={x} y={height - ok} width={width / 2} height={ok} />
              <rect
                class="bar-failed"
                x={x + width / 2}
                y={height - bad}
                width={width / 2}
                height={bad}
              />
              <text x={x + width / 2} y={height + 14} text-anchor="middle">
                {label(day.day)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>
        Last {chartDays} days: <span class="key-ok">{delivered} delivered</span>,{' '}
        <span class="key-failed">{failed} failed</span>
      </figcaption>
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
        <Alert error={error} />
        <button type="submit" disabled={busy}>
          Recover
        </button>
      </Form>
      {result && <Notice>{result}</Notice>}
    </section>
  );
}
