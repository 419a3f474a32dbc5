import type { ErrorCode, ErrorDetail, RefusedInput } from '../domain/errors.js';
import { Refusal, ServiceError } from '../domain/errors.js';
import { log } from '../log.js';

/** The HTTP status of each error code: the one place where domain errors meet HTTP. */
export const statusOfCode: Record<ErrorCode, number> = {
  invalid_request: 400,
  invalid_otp: 400,
  otp_expired: 400,
  invalid_credentials: 401,
  unauthorized: 401,
  invalid_token: 401,
  invalid_signature: 401,
  email_not_verified: 403,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  too_many_attempts: 429,
  rate_limited: 429,
  internal_error: 500,
};

export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export interface PageMeta {
  page: number;
  per_page: number;
  /** Exact on the last page; before it, the items up to the page's end plus one. */
  total: number;
  /** Where the next page starts (`?cursor=`); null on the last page. */
  next_cursor: string | null;
}

const jsonHeaders = { 'content-type': 'application/json; charset=utf-8' };

export function successResponse(status: number, data: unknown, meta?: PageMeta): HttpResponse {
  return {
    statusCode: status,
    headers: { ...jsonHeaders },
    body: JSON.stringify(
      meta === undefined ? { success: true, data } : { success: true, data, meta },
    ),
  };
}

/**
 * A detail as a sentence naming its field ("email must be a valid email address"): details are
 * written as predicates ("must be …", "is required") next to their field, and read as sentences.
 */
export function detailSentence({ field, message }: ErrorDetail): string {
  return message.startsWith(`${field} `) ? message : `${field} ${message}`;
}

export function errorResponse(
  code: ErrorCode,
  message: string,
  details: ErrorDetail[] = [],
): HttpResponse {
  const sentences = details.map((detail) => ({
    field: detail.field,
    message: detailSentence(detail),
  }));
  return {
    statusCode: statusOfCode[code],
    headers: { ...jsonHeaders },
    body: JSON.stringify({ success: false, error: { code, message, details: sentences } }),
  };
}

/** An error thrown by middy's own middlewares (they carry a statusCode). */
interface HttpLikeError {
  statusCode: number;
  message: string;
}

const isHttpLikeError = (error: unknown): error is HttpLikeError =>
  error instanceof Error && typeof (error as Partial<HttpLikeError>).statusCode === 'number';

/** The request field that holds each input a refusal can be about, as a definition names it. */
export type InputFields = Partial<Record<RefusedInput, string>>;

/**
 * The answer to an adapter's refusal (`Refusal`): its code and message, and the detail naming
 * the refused input's field on this route.
 */
export function answerOfRefusal(refusal: Refusal, inputFields: InputFields): ServiceError {
  const detail = (input: RefusedInput, message: string): ErrorDetail[] => {
    const field = inputFields[input];
    return field === undefined ? [] : [{ field, message }];
  };
  switch (refusal.reason) {
    case 'smsUndeliverable':
      return new ServiceError(
        'invalid_request',
        'This phone number cannot receive text messages',
        detail('phone', 'cannot receive text messages'),
        { cause: refusal.cause },
      );
    case 'accountGone':
      return new ServiceError('invalid_token', 'The account no longer exists');
    case 'accountChanged':
      return new ServiceError('conflict', 'The account changed during sign-in; try again');
    case 'endpointsBusy':
      return new ServiceError(
        'conflict',
        'Other changes to this account’s webhook endpoints are in progress; try again',
        [],
        { cause: refusal.cause },
      );
    case 'eventTooLarge':
      // The whole request body, as the size checks of the HTTP layer name it.
      return new ServiceError('payload_too_large', 'The event is too large to store', [
        {
          field: 'body',
          message: `must compress to at most ${refusal.limit} bytes, with an id and a type short enough to store`,
        },
      ]);
    case 'foreignCursor':
      return new ServiceError(
        'invalid_request',
        'The cursor is not valid',
        detail('cursor', 'is not a cursor this service issued'),
      );
  }
}

/**
 * Turns anything thrown into the error envelope. Service errors speak for themselves; a 4xx from
 * a middy middleware (malformed JSON, wrong content type) becomes invalid_request; everything else
 * is a 500 whose body says nothing about the cause, which is logged instead.
 */
export function responseForError(
  error: unknown,
  requestId: string,
  inputFields: InputFields = {},
): HttpResponse {
  if (error instanceof Refusal)
    return responseForError(answerOfRefusal(error, inputFields), requestId);
  if (error instanceof ServiceError) {
    const response = errorResponse(error.code, error.message, error.details);
    if (error.retryAfterSeconds !== undefined) {
      response.headers['retry-after'] = String(error.retryAfterSeconds);
    }
    return response;
  }
  if (isHttpLikeError(error) && error.statusCode >= 400 && error.statusCode < 500) {
    // @middy/http-json-body-parser's two refusals, both 415 there and 400 by the contract.
    const problem =
      error.message === 'Unsupported Media Type'
        ? 'must be sent as application/json'
        : 'must be valid JSON';
    return errorResponse('invalid_request', `body ${problem}`, [
      { field: 'body', message: problem },
    ]);
  }
  log.error('unhandled error', { requestId, error });
  return errorResponse(
    'internal_error',
    'Something went wrong on our side; the request can be retried',
  );
}
