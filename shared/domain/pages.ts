import { ServiceError } from './errors.js';

/**
 * How a list is asked for and answered, in every area: one page, by number or by the cursor an
 * earlier page handed out. A cursor is opaque here: the adapter that issued it reads it.
 */
export interface PageRequest {
  /** 1-based; with a cursor, only what the answer's `page` is counted from. */
  page: number;
  perPage: number;
  /** Where the page starts: the `next` of the page before it. */
  cursor?: string;
}

/** One page of a list, and where the next one starts (absent at the list's end). */
export interface PageOf<T> {
  items: T[];
  /**
   * Items up to this page's end, plus one when more follow: exact on the last page, a lower bound
   * before it. Counting them all would read the whole history of the list.
   */
  total: number;
  /** The page's number, counted from the first page whatever way it was reached. */
  page: number;
  next?: string;
}

/** The items a page-numbered request skips before its page. */
export const pageOffset = (request: PageRequest): number => (request.page - 1) * request.perPage;

/**
 * The deepest item a request by page number may reach; past it, the list is read by cursor
 * (reaching page N by number reads every item before it).
 */
export const maxPageOffset = 10_000;

/** Refuses a page number that reaches past `maxPageOffset` items without a cursor. */
export function assertReachable(request: PageRequest): void {
  if (request.cursor === undefined && pageOffset(request) > maxPageOffset) {
    throw new ServiceError('invalid_request', 'This page is too deep to reach by number', [
      {
        field: 'page',
        message: `must not skip more than ${maxPageOffset} items (page × per_page); follow meta.next_cursor with cursor instead`,
      },
    ]);
  }
}
