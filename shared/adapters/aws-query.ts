import { type AwsRequest, type AwsResponse, encodeRfc3986 } from './aws-signed-request.js';

/**
 * The AWS Query protocol, as the SDK speaks it to SNS and SES (sns-client.ts, ses-client.ts): a
 * form-encoded POST (`Action=…&Version=…&…`, fields in the order of the SDK's schema) answered in
 * XML, a refusal as `<ErrorResponse><Error><Code>…</Code><Message>…`.
 */

/** The request of `action`: `fields` after `Action` and `Version`, encoded as the SDK's are. */
export function queryRequest(
  action: string,
  version: string,
  fields: [string, string][],
): AwsRequest {
  const all: [string, string][] = [['Action', action], ['Version', version], ...fields];
  return {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: all.map(([name, value]) => `${encodeRfc3986(name)}=${encodeRfc3986(value)}`).join('&'),
    what: action,
  };
}

const entities: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

/** The text of the first `<tag>` of an XML answer, its entities decoded. */
export function xmlText(xml: string, tag: string): string | undefined {
  const text = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml)?.[1];
  return text?.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X'))
      return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
    return entities[name] ?? entity;
  });
}

/** The code and message of a refusal (`HTTP<status>` when the answer names none). */
export function queryRefusalOf({ status, text }: AwsResponse): { code: string; message: string } {
  const code = xmlText(text, 'Code') ?? `HTTP${status}`;
  return { code, message: xmlText(text, 'Message') ?? code };
}
