/**
 * Calls to the public API at `/v1` of this page's own origin, read through the service's
 * envelopes: `{ success: true, data, meta? }` or `{ success: false, error: { code, message,
 * details } }`.
 */

export interface FieldError {
  field: string;
  message: string;
}

export interface PageMeta {
  page: number;
  per_page: number;
  total: number;
}

/** An answer the API refused, or no answer at all (`status` 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: FieldError[] = [],
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  /** What the page shows: the API's own message, with the wait of a 429. */
  get sentence(): string {
    if (this.retryAfterSeconds !== undefined) {
      const unit = this.retryAfterSeconds === 1 ? 'second' : 'seconds';
      return `${this.message} Try again in ${this.retryAfterSeconds} ${unit}.`;
    }
    return this.message;
  }

  detailOf(field: string): string | undefined {
    return this.details.find((detail) => detail.field === field)?.message;
  }
}

export type Query = Record<string, string | number | undefined>;

export interface Request {
  body?: unknown;
  query?: Query;
  token?: string;
}

interface Envelope<T> {
  success: boolean;
  data?: T;
  meta?: PageMeta;
  error?: { code: string; message: string; details?: FieldError[] };
}

export async function call<T>(
  method: string,
  path: string,
  request: Request = {},
): Promise<{ data: T; meta?: PageMeta }> {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined && value !== '') search.set(name, String(value));
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  if (request.token !== undefined) headers.authorization = `Bearer ${request.token}`;
  let response: Response;
  try {
    response = await fetch(`/v1${path}${search.size > 0 ? `?${search}` : ''}`, {
      method,
      headers,
      body: request.body === undefined ? null : JSON.stringify(request.body),
      credentials: 'omit',
    });
  } catch {
    throw new ApiError(0, 'network', 'The service could not be reached. Check your connection.');
  }
  const envelope = (await response.json().catch(() => undefined)) as Envelope<T> | undefined;
  if (response.ok && envelope?.success === true) {
    return envelope.meta === undefined
      ? { data: envelope.data as T }
      : { data: envelope.data as T, meta: envelope.meta };
  }
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
  throw new ApiError(
    response.status,
    envelope?.error?.code ?? 'unexpected',
    envelope?.error?.message ?? `The service answered ${response.status}.`,
    envelope?.error?.details ?? [],
    response.status === 429 && Number.isFinite(retryAfter) ? retryAfter : undefined,
  );
}

/** The shapes the dashboard reads (service-interface.md and contract.md). */

export interface User {
  id: string;
  name: string;
  email: string;
  phone: string | null;
  email_verified: boolean;
  phone_verified: boolean;
  pending_email?: string | null;
  pending_phone?: string | null;
}

export interface Tokens {
  access_token: string;
  expires_in: number;
  refresh_token: string;
  user: User;
  password_reset_required?: boolean;
}

export interface Endpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  disabled_reason: 'manual' | 'failing' | null;
  failing_since: string | null;
  created_at: string;
  secret?: string;
  previous_secret_expires_at?: string;
}

export interface Attempt {
  attempt: number;
  attempted_at: string;
  outcome: string;
  response_status: number | null;
  latency_ms: number;
  response_body: string | null;
  error: string | null;
}

export interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  paused: boolean;
  attempts_made: number;
  next_attempt_at: string | null;
  created_at: string;
  attempts: Attempt[];
}

export interface EventType {
  type: string;
  description: string;
}

export interface Session {
  id: string;
  created_at: string;
  last_used_at: string;
  user_agent: string | null;
  ip_address: string | null;
  current: boolean;
}
