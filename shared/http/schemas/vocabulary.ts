/**
 * The fixed value sets the API names, shared by the request and response schemas. Plain values,
 * no schema: the response schemas import this module rather than a request-schema module, so a
 * bundle that imports them (through its definition's `answer`) does not keep request schemas it
 * never uses.
 */

/** The documented set of gender values (docs/api.md). */
export const genders = ['female', 'male', 'non_binary', 'other', 'prefer_not_to_say'] as const;

/**
 * An event type's status, for the `status` filter every list takes: each type the catalogue lists
 * can be subscribed to, which is what `active` says.
 */
export const eventTypeStatuses = ['active'] as const;

/** A session's status, for the `status` filter every list takes: the list holds live sessions. */
export const sessionStatuses = ['active'] as const;

/** A delivery's status as clients see it (attempting and paused read as pending). */
export const deliveryStatuses = ['pending', 'delivered', 'failed'] as const;
