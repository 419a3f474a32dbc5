import { toJsonSchema } from '@valibot/to-json-schema';
import { eventTypes } from '../domain/event-types.js';
import {
  type EventTypeDefinition,
  eventCatalogue,
  exampleEvent,
} from '../domain/webhooks/event-catalogue.js';

/** One entry of `GET /v1/event-types`, and the source of one OpenAPI `webhooks` entry. */
export interface EventTypeDocument {
  type: string;
  description: string;
  /** JSON Schema (2020-12) of the whole event object a receiver gets for this type. */
  schema: Record<string, unknown>;
  /** An event object of this type, as a receiver gets it. */
  example: ReturnType<typeof exampleEvent>;
}

/**
 * The catalogue entry of a type with its payload as JSON Schema, generated from the same valibot
 * schema that publication checks, so the published shape cannot drift from what is enforced.
 */
export function eventTypeDocument(definition: EventTypeDefinition): EventTypeDocument {
  const { $schema: _, ...data } = toJsonSchema(definition.data, {
    target: 'draft-2020-12',
    errorMode: 'ignore',
  }) as Record<string, unknown>;
  return {
    type: definition.type,
    description: definition.description,
    schema: {
      type: 'object',
      required: ['id', 'type', 'created_at', 'data'],
      additionalProperties: false,
      properties: {
        id: {
          type: 'string',
          pattern: '^evt_',
          maxLength: 64,
          description: 'The event id; also the webhook-id header. Deduplicate on it.',
        },
        type: { const: definition.type },
        created_at: {
          type: 'string',
          format: 'date-time',
          maxLength: 30,
          description: 'When the event was published (ISO 8601, UTC)',
        },
        data,
      },
    },
    example: exampleEvent(definition),
  };
}

/** The types a client can subscribe to, as `GET /v1/event-types` lists them. */
export const subscribableEventTypeDocuments = (): EventTypeDocument[] =>
  eventTypes.map((type) => eventTypeDocument(eventCatalogue[type]));
