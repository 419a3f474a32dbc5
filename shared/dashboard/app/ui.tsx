import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from '../../http/client/api-client.js';

/** Small building blocks every page uses: labelled fields, alerts, actions with their errors. */

export function navigate(hash: string): void {
  location.hash = hash;
}

/** The current `#/path?query` of the page. */
export function useRoute(): { path: string; params: URLSearchParams } {
  const read = () => {
    const [path = '/', query = ''] = location.hash.replace(/^#/, '').split('?');
    return { path: path === '' ? '/' : path, params: new URLSearchParams(query) };
  };
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const changed = () => setRoute(read());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

/** Runs one action at a time and keeps its error for the form to show. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const run = useCallback(async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (caught) {
      setError(
        caught instanceof ApiError
          ? caught
          : new ApiError(0, 'unexpected', 'Something went wrong in this page. Reload it.'),
      );
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, setError };
}

/** Loads data for a page; `reload` fetches it again. */
export function useLoad<T>(load: () => Promise<T>, keys: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({
    loading: true,
  });
  const [generation, setGeneration] = useState(0);
  // The caller names what the load reads in `keys`.
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => current && setState({ data, loading: false }),
      (error: unknown) =>
        current &&
        setState({
          loading: false,
          error:
            error instanceof ApiError ? error : new ApiError(0, 'unexpected', 'Could not load.'),
        }),
    );
    return () => {
      current = false;
    };
  }, [...keys, generation]);
  return { ...state, reload: () => setGeneration((value) => value + 1) };
}

/** What the page shows for a refusal: the API's own message, with the wait of a 429. */
function sentenceOf(error: ApiError): string {
  if (error.retryAfterSeconds === undefined) return error.message;
  const unit = error.retryAfterSeconds === 1 ? 'second' : 'seconds';
  return `${error.message} Try again in ${error.retryAfterSeconds} ${unit}.`;
}

/**
 * A field's detail as a sentence naming the field: `must be at least 8 characters` under "New
 * password" reads "New password must be at least 8 characters."
 */
const asSentence = (label: string, detail: string) =>
  `${label.replace(/\s*\(.*\)$/, '')} ${detail}${/[.!?]$/.test(detail) ? '' : '.'}`;

/**
 * A refusal, said once: when the form shows every field a detail names (`fields`), each detail
 * is read beside its field and the alert only points there; otherwise the API's whole message.
 */
export function Alert({ error, fields }: { error: ApiError | undefined; fields?: string[] }) {
  if (error === undefined) return null;
  const shownBeside =
    fields !== undefined &&
    error.details.length > 0 &&
    error.details.every((detail) => fields.includes(detail.field));
  return (
    <p class="alert" role="alert">
      {shownBeside
        ? error.details.length === 1
          ? 'Correct the field marked below.'
          : 'Correct the fields marked below.'
        : sentenceOf(error)}
    </p>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

interface FieldProps {
  label: string;
  type?: 'text' | 'email' | 'password' | 'url' | 'tel' | 'date' | 'datetime-local';
  autocomplete?: string;
  inputMode?: 'numeric';
  placeholder?: string;
  name: string;
  value: string;
  onInput: (value: string) => void;
  error?: ApiError | undefined;
  hint?: string;
}

/** A labelled input that shows the API's detail for its field. */
export function Field({ label, name, value, onInput, error, hint, ...input }: FieldProps) {
  const id = useId();
  const problem = fieldProblem(error, name, label);
  const described = [hint && `${id}-hint`, problem && `${id}-error`].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint && (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      <input
        {...input}
        id={id}
        name={name}
        value={value}
        onInput={(event) => onInput(event.currentTarget.value)}
        aria-invalid={problem ? 'true' : undefined}
        aria-describedby={described || undefined}
      />
      {problem && (
        <span class="field-error" id={`${id}-error`}>
          {problem}
        </span>
      )}
    </div>
  );
}

/** A field's detail as the page shows it beside the field, labelled `label`. */
export const fieldProblem = (error: ApiError | undefined, field: string, label: string) => {
  const problem = error?.detailOf(field);
  // Some details name their field first (`current_password is incorrect`): the label says it.
  return problem === undefined
    ? undefined
    : asSentence(
        label,
        problem.startsWith(`${field} `) ? problem.slice(field.length + 1) : problem,
      );
};

/**
 * A form or question that a button opens gives the focus back to that button when it closes
 * unanswered (Escape or Cancel): the browser would leave it on the page's body, and a keyboard
 * or screen-reader user would start again from the top. `opener` goes on the button, and
 * `returnFocus()` is called as it closes; the focus moves once the page has rendered without the
 * form, so a button that was hidden while the form was open (Add endpoint) gets it too.
 */
export function useReturnFocus() {
  const opener = useRef<HTMLButtonElement>(null);
  const [returns, setReturns] = useState(0);
  useEffect(() => {
    if (returns > 0) opener.current?.focus();
  }, [returns]);
  return { opener, returnFocus: () => setReturns((count) => count + 1) };
}

export function Form({
  onSubmit,
  children,
  label,
  focusFirst = false,
  onEscape,
}: {
  onSubmit: () => void;
  children: ComponentChildren;
  label?: string;
  /** A form that opens on request takes the focus into its first field. */
  focusFirst?: boolean;
  /** Escape closes a form that opened on request. */
  onEscape?: () => void;
}) {
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (focusFirst) form.current?.querySelector<HTMLElement>('input, select, textarea')?.focus();
  }, [focusFirst]);
  return (
    <form
      ref={form}
      aria-label={label}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && onEscape !== undefined) onEscape();
      }}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}

/** A time to the second, in the reader's zone: what a developer matches against a log. */
export const formatTime = (iso: string | null) =>
  iso === null
    ? '—'
    : new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A button that copies `text` and says so. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      class="copy"
      aria-label={label}
      onClick={async () => {
        await navigator.clipboard.writeText(text).then(
          () => setCopied(true),
          () => setCopied(false),
        );
      }}
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

/** An id in monospace with its copy button. */
export function CopyableId({ name, id }: { name: string; id: string }) {
  return (
    <span class="copyable">
      <span class="mono break">{id}</span> <CopyButton text={id} label={`Copy ${name} ${id}`} />
    </span>
  );
}

/** Text as it was sent, in a labelled block that scrolls and is reachable by keyboard. */
export function CodeBlock({ label, children }: { label: string; children: string }) {
  return (
    <figure class="code-block" aria-label={label}>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling block is reachable by keyboard. */}
      <pre class="code" tabIndex={0}>
        {children}
      </pre>
    </figure>
  );
}

/** JSON, indented, in a scrolling block. */
export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return <CodeBlock label={label}>{JSON.stringify(value, null, 2)}</CodeBlock>;
}

/**
 * The catalogue's descriptions use Markdown's inline code (`status`) and strong emphasis: those
 * two, as elements (never as HTML), and the rest as text.
 */
export function InlineMarkdown({ text }: { text: string }) {
  return (
    <>
      {text
        .split(/(`[^`]+`|\*\*[^*]+\*\*)/)
        .map((part, index) =>
          part.startsWith('`') && part.length > 2 ? (
            <code key={index}>{part.slice(1, -1)}</code>
          ) : part.startsWith('**') && part.length > 4 ? (
            <strong key={index}>{part.slice(2, -2)}</strong>
          ) : (
            part
          ),
        )}
    </>
  );
}

/** A value shown once (a signing secret) with a copy button. */
export function SecretReveal({
  secret,
  children,
}: {
  secret: string;
  children: ComponentChildren;
}) {
  const id = useId();
  const box = useRef<HTMLInputElement>(null);
  // The form or question that made it has closed: the focus goes to the secret to copy, not to
  // the page's body, and a screen reader reads it with its warning.
  useEffect(() => box.current?.focus(), [secret]);
  return (
    <section class="secret" aria-labelledby={id}>
      <h3 id={id}>Signing secret</h3>
      <p class="warning" id={`${id}-warning`}>
        {children}
      </p>
      <div class="secret-row">
        <input
          ref={box}
          readOnly
          value={secret}
          aria-label="Signing secret"
          aria-describedby={`${id}-warning`}
          class="mono"
        />
        <CopyButton text={secret} label="Copy the signing secret" />
      </div>
    </section>
  );
}
