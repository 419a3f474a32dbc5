import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useId, useState } from 'preact/hooks';
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

export function Alert({ error }: { error: ApiError | undefined }) {
  if (error === undefined) return null;
  return (
    <p class="alert" role="alert">
      {sentenceOf(error)}
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
  const problem = error?.detailOf(name);
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

export function Form({
  onSubmit,
  children,
  label,
}: {
  onSubmit: () => void;
  children: ComponentChildren;
  label?: string;
}) {
  return (
    <form
      aria-label={label}
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

export const formatTime = (iso: string | null) =>
  iso === null
    ? '—'
    : new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A value shown once (a signing secret) with a copy button. */
export function SecretReveal({
  secret,
  children,
}: {
  secret: string;
  children: ComponentChildren;
}) {
  const [copied, setCopied] = useState(false);
  const id = useId();
  return (
    <section class="secret" aria-labelledby={id}>
      <h3 id={id}>Signing secret</h3>
      <p class="warning">{children}</p>
      <div class="secret-row">
        <input readOnly value={secret} aria-label="Signing secret" class="mono" />
        <button
          type="button"
          onClick={async () => {
            await navigator.clipboard.writeText(secret).then(
              () => setCopied(true),
              () => setCopied(false),
            );
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
    </section>
  );
}
