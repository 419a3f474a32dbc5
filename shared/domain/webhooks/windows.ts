import { ServiceError } from '../errors.js';
import type { CreatedWindow } from './ports.js';

/**
 * Refuses a window that cannot hold anything: a start at or after its end is a mistake worth
 * saying (400, naming the start field) rather than an empty answer.
 */
export function assertWindow(window: CreatedWindow, fields: { after: string; before: string }) {
  if (
    window.createdAfter !== undefined &&
    window.createdBefore !== undefined &&
    window.createdAfter >= window.createdBefore
  ) {
    throw new ServiceError('invalid_request', `${fields.after} must be before ${fields.before}`, [
      { field: fields.after, message: `must be before ${fields.before}` },
    ]);
  }
}

/** Whether an ISO 8601 UTC time lies strictly inside the window (bounds are ISO 8601 UTC too). */
export const isInWindow = (createdAt: string, window: CreatedWindow): boolean =>
  (window.createdAfter === undefined || createdAt > window.createdAfter) &&
  (window.createdBefore === undefined || createdAt < window.createdBefore);
