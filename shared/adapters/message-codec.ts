import * as v from 'valibot';
import { currentCorrelationId } from '../log.js';

/** A queue message as a worker receives it: what to do, and the request that asked for it. */
export interface Decoded<TMessage> {
  message: TMessage;
  /** The correlation id of the work that sent it; absent from a message sent without one. */
  correlationId?: string;
}

/**
 * The body format of one queue, written once: `encode` puts the sender's correlation id beside
 * the message (`correlation_id`), `decode` checks a body against the schema and answers
 * undefined for one this service did not write (the worker drops it, never retries it).
 */
export interface MessageCodec<TMessage> {
  encode(message: TMessage): string;
  decode(body: string): Decoded<TMessage> | undefined;
}

/**
 * Request ids of API Gateway, Function URLs, Lambda and SQS (UUIDs and the like). A malformed one
 * is ignored rather than a reason to drop the message: it only labels the log lines.
 */
const CorrelationField = v.object({
  correlation_id: v.pipe(v.string(), v.regex(/^[\w.:=-]{1,128}$/)),
});

/**
 * A codec from the body's valibot schema and the mapping between body and message (the body is
 * snake_case JSON; the message whatever the use-case takes). The correlation id comes from the
 * log context of the code that sends, so use-cases never pass it along themselves.
 */
export function messageCodec<
  TSchema extends v.GenericSchema<Record<string, unknown>, unknown>,
  TMessage,
>(
  schema: TSchema,
  mapping: {
    toBody: (message: TMessage) => v.InferInput<TSchema>;
    fromBody: (body: v.InferOutput<TSchema>) => TMessage;
  },
): MessageCodec<TMessage> {
  return {
    encode: (message) =>
      JSON.stringify({ ...mapping.toBody(message), correlation_id: currentCorrelationId() }),
    decode: (body) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return undefined;
      }
      const result = v.safeParse(schema, parsed);
      if (!result.success) return undefined;
      const correlation = v.safeParse(CorrelationField, parsed);
      return {
        message: mapping.fromBody(result.output),
        ...(correlation.success ? { correlationId: correlation.output.correlation_id } : {}),
      };
    },
  };
}
