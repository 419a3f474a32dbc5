import { Alert, CopyButton, InlineMarkdown, JsonBlock } from '../ui.js';
import { useEventTypes } from './endpoints.js';

/**
 * The event catalogue (`GET /v1/event-types`, public): each type a client can subscribe to, what
 * it means, an example event as a receiver gets it, and the JSON Schema of that event.
 */
export function EventTypes() {
  const types = useEventTypes();
  return (
    <main>
      <h1>Event types</h1>
      <p>
        What an endpoint can subscribe to. Each delivery posts one event object; deduplicate on its{' '}
        <code>id</code>, which is also the <code>webhook-id</code> header.
      </p>
      {types.loading && <p>Loading…</p>}
      <Alert error={types.error} />
      {(types.data ?? []).map((type) => (
        <section class="panel" key={type.type} aria-labelledby={`type-${type.type}`}>
          <h2 id={`type-${type.type}`} class="mono">
            {type.type}
          </h2>
          <p>
            <InlineMarkdown text={type.description} />
          </p>
          <div class="title-row">
            <h3>Example</h3>
            <CopyButton
              text={JSON.stringify(type.example, null, 2)}
              label={`Copy the example of ${type.type}`}
            />
          </div>
          <JsonBlock value={type.example} label={`Example of ${type.type}`} />
          <details>
            <summary>JSON Schema</summary>
            <JsonBlock value={type.schema} label={`Schema of ${type.type}`} />
          </details>
        </section>
      ))}
    </main>
  );
}
