import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { ErrorEnvelope, paths } from './api-types.js';

/**
 * A typed client of the API, on openapi-fetch over the types generated from the OpenAPI document
 * (api-types.ts, `npm run client:generate`): paths, parameters, bodies and every documented
 * answer are checked by the compiler. The dashboard and the end-to-end tests call the API
 * through it; client apps can copy these two files.
 *
 *   const api = createApiClient('http://localhost:3000/v1');
 *   const { data, error, response } = await api.POST('/auth/login', { body: { email, password } });
 *   // data: the success envelope of login; error: one of its documented error envelopes
 */

export type ApiClient = Client<paths, 'application/json'>;

/** A client of the API at `baseUrl`, which ends in `/v1` (relative in a page of the same origin). */
export function createApiClient(
  baseUrl: string,
  options: Omit<ClientOptions, 'baseUrl'> = {},
): ApiClient {
  return createClient<paths, 'application/json'>({ ...options, baseUrl });
}

/** The headers of a call authenticated with an access token. */
export const bearer = (accessToken: string) => ({ authorization: `Bearer ${accessToken}` });

type FieldError = ErrorEnvelope['error']['details'][number];

/** An answer the API refused (its error envelope), or no usable answer at all (`status` 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: FieldError[] = [],
    /** A 429's Retry-After, in seconds. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  /** The message of the detail naming `field`, if any. */
  detailOf(field: string): string | undefined {
    return this.details.find((detail) => detail.field === field)?.message;
  }
}

const isErrorEnvelope = (body: unknown): body is ErrorEnvelope =>
  typeof body === 'object' && body !== null && (body as ErrorEnvelope).success === false;

/** What an openapi-fetch call resolves to: the success body, or the error body. */
export interface Answer {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The success envelope of an answer. */
export type SuccessOf<A extends Answer> = NonNullable<A['data']>;

/**
 * The success envelope of a call, `{success, data, meta?}`; an ApiError for a refusal (with the
 * envelope's code, message and details), for an answer that is no envelope, or for no answer.
 */
export async function successOf<A extends Answer>(sent: Promise<A>): Promise<SuccessOf<A>> {
  let answer: A;
  try {
    answer = await sent;
  } catch (error) {
    // fetch rejects with a TypeError when no answer came (network, CORS); a success answer that
    // is not JSON fails to parse. Anything else (a middleware's own error) is not ours to hide.
    if (error instanceof TypeError) {
      throw new ApiError(0, 'network', 'The service could not be reached. Check your connection.');
    }
    if (error instanceof SyntaxError) {
      throw new ApiError(0, 'unexpected', 'The service answered with something other than JSON.');
    }
    throw error;
  }
  if (answer.error === undefined) return answer.data as SuccessOf<A>;
  const { status, headers } = answer.response;
  if (!isErrorEnvelope(answer.error)) {
    throw new ApiError(status, 'unexpected', `The service answered ${status}.`);
  }
  const retryAfter = Number(headers.get('retry-after') ?? Number.NaN);
  const { code, message, details } = answer.error.error;
  throw new ApiError(
    status,
    code,
    message,
    details,
    status === 429 && Number.isFinite(retryAfter) ? retryAfter : undefined,
  );
}

type DataOf<A extends Answer> = SuccessOf<A> extends { data: infer Data } ? Data : never;

/** The `data` of a success envelope (see successOf for refusals). */
export async function dataOf<A extends Answer>(sent: Promise<A>): Promise<DataOf<A>> {
  const envelope: unknown = await successOf(sent);
  return (envelope as { data: DataOf<A> }).data;
}
