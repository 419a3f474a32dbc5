import { Refusal } from '../domain/errors.js';
import { type PageOf, type PageRequest, pageOffset } from '../domain/pages.js';

/**
 * The cursors of every list: base64url of JSON, opaque to clients. A cursor holds where the page
 * before it stopped (`k`: key attributes, never a list's partition — the request names that, so
 * a cursor replayed on another list can only point into the list it is replayed on) and how many
 * items came before the page it starts (`n`, which numbers the page and bounds `total`).
 */
interface CursorContent {
  k: Record<string, string>;
  n: number;
}

/** The most items a cursor may say came before its page (what `meta.page` can number). */
const maxCountBefore = 1_000_000_000;

export const encodeCursor = (content: CursorContent): string =>
  Buffer.from(JSON.stringify(content), 'utf8').toString('base64url');

/**
 * The position and count a cursor holds: exactly the attributes `names`, each a string of 1 to
 * 1,024 characters, and a count. Anything else was not issued here: a `foreignCursor` refusal.
 */
export function decodeCursor(cursor: string, names: string[]): CursorContent {
  let content: Partial<CursorContent> | undefined;
  try {
    content = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new Refusal('foreignCursor');
  }
  const key: unknown = typeof content === 'object' && content !== null ? content.k : undefined;
  const before = typeof content === 'object' && content !== null ? content.n : undefined;
  if (
    typeof before !== 'number' ||
    !Number.isSafeInteger(before) ||
    before < 0 ||
    before > maxCountBefore ||
    typeof key !== 'object' ||
    key === null ||
    Object.keys(key).length !== names.length ||
    !names.every((name) => {
      const value: unknown = (key as Record<string, unknown>)[name];
      return typeof value === 'string' && value.length > 0 && value.length <= 1024;
    })
  ) {
    throw new Refusal('foreignCursor');
  }
  return { k: key as Record<string, string>, n: before };
}

/**
 * One page of a short list held whole (a bounded set, such as an account's endpoints or the event
 * catalogue): after the position a cursor holds, or by number. `positionOf` is unique, and the
 * list is sorted by it, `descending` or not; an item gone since the cursor was issued leaves the
 * next page starting at the first item that sorts after it. The total is exact.
 */
export function pageOfSorted<T>(
  sorted: T[],
  request: PageRequest,
  positionOf: (item: T) => string,
  descending: boolean,
): PageOf<T> {
  let start = pageOffset(request);
  if (request.cursor !== undefined) {
    const { at } = decodeCursor(request.cursor, ['at']).k;
    const after = sorted.findIndex((item) =>
      descending ? positionOf(item) < at! : positionOf(item) > at!,
    );
    start = after >= 0 ? after : sorted.length;
  }
  const items = sorted.slice(start, start + request.perPage);
  const last = items.at(-1);
  const next =
    last !== undefined && start + items.length < sorted.length
      ? encodeCursor({ k: { at: positionOf(last) }, n: start + items.length })
      : undefined;
  return {
    items,
    page: Math.floor(start / request.perPage) + 1,
    total: sorted.length,
    ...(next === undefined ? {} : { next }),
  };
}
