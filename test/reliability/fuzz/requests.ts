import fc from 'fast-check';

/**
 * Hostile and malformed requests generated from the service's own OpenAPI document: for every
 * operation, bodies that are almost right (one field of the wrong type, missing, null, huge,
 * unicode, nested junk), not JSON at all, or binary; wrong and missing content types; bad
 * percent-encoding, overlong paths and headers; bogus credentials and signatures. What the
 * document declares is what gets broken, so a new operation is fuzzed the day it is added.
 */

export interface FuzzRequest {
  /** The operation it was generated from (`POST /auth/signup`), or `stray`. */
  operation: string;
  method: string;
  /**
   * Path and query below the origin, as sent (it may hold deliberately bad encoding).
   * `{{endpoint}}` stands for a webhook endpoint of the fuzzer's own account (runFuzz fills it).
   */
  target: string;
  /** `authorization: {{token}}` stands for a valid access token of the fuzzer's own account. */
  headers: Record<string, string>;
  body?: Buffer;
  /**
   * Signed at send time with the local runtime's default secret of this sender (the signature
   * covers the body, and gateway B's its time too): the body then reaches the event's parser.
   */
  signedAs?: ReceiverSource;
}

export type ReceiverSource = 'gateway-a' | 'gateway-b' | 'messaging';

/** Placeholders runFuzz fills at send time. */
export const validTokenPlaceholder = '{{token}}';
export const ownEndpointPlaceholder = '{{endpoint}}';

/** The sender each receiver path is for. */
const receiverSources: Record<string, ReceiverSource> = {
  '/gateway-a-webhook-listener': 'gateway-a',
  '/gateway-a-webhook-enhanced': 'gateway-a',
  '/subscriptions/gateway-a': 'gateway-a',
  '/gateway-b-webhook': 'gateway-b',
  '/messaging': 'messaging',
};

interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: JsonSchema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema?: JsonSchema }> };
  'x-surface'?: string;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

const digits = (length: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: length, maxLength: length });

const word = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'),
  minLength: 1,
  maxLength: 12,
});

const email = fc.tuple(word, word).map(([local, domain]) => `${local}@${domain}.example.com`);
const phone = digits(7).map((rest) => `+1415${rest}`);

/** Strings that break naive code: unicode of every plane, controls, RTL, NULs, emoji, huge. */
const nastyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\u202e\u0041\u0042',
    '👩‍👩‍👧‍👦'.repeat(20),
    '%00%zz%',
    '../../etc/passwd',
    '<script>alert(1)</script>',
    "' OR 1=1 --",
    '{"$gt":""}',
    '\ud800',
    'a'.repeat(300),
  ),
  fc.integer({ min: 1_000, max: 70_000 }).map((length) => 'x'.repeat(length)),
);

/** Any JSON value, nested a few levels deep. */
const junk = fc.jsonValue({ maxDepth: 4 });

/** A value the schema accepts, or close to it (field names give the common formats). */
function validValue(schema: JsonSchema, name = ''): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants !== undefined) return fc.oneof(...variants.map((item) => validValue(item, name)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string': {
      if (schema.format === 'email' || /email/.test(name)) return email;
      if (schema.format === 'date-time') {
        return fc
          .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
          .map((date) => date.toISOString());
      }
      if (/phone|mobile/.test(name)) return phone;
      if (/url/.test(name)) return word.map((path) => `https://example.com/${path}`);
      if (schema.pattern === '^\\d{6}$') return digits(6);
      if (schema.pattern !== undefined) return fc.stringMatching(new RegExp(schema.pattern));
      const minLength = schema.minLength ?? 0;
      return fc.string({
        minLength,
        maxLength: Math.max(minLength, Math.min(schema.maxLength ?? 40, 40)),
      });
    }
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000, max: schema.maximum ?? 1_000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validValue(schema.items ?? {}, name), { minLength: 1, maxLength: 3 });
    case 'object':
      return validObject(schema);
    default:
      return junk;
  }
}

function validObject(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties))
    record[name] = validValue(property, name);
  return fc.record(record, { requiredKeys: schema.required ?? [] });
}

/** A wrong value for a field: another type, null, a nasty string, nested junk. */
const wrongValue = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  nastyString,
  fc.array(junk, { maxLength: 4 }),
  fc.dictionary(word, junk, { maxKeys: 4 }),
  junk,
);

/** An object that is right but for one or a few fields: mutated, dropped, or added. */
function nearlyValidObject(schema: JsonSchema): fc.Arbitrary<unknown> {
  const names = Object.keys(schema.properties ?? {});
  return fc
    .tuple(
      validObject(schema),
      fc.subarray(names, { maxLength: Math.min(2, names.length) }),
      fc.array(fc.tuple(fc.oneof(word, nastyString), wrongValue), { maxLength: 2 }),
      fc.array(wrongValue, { minLength: 2, maxLength: 2 }),
      fc.boolean(),
    )
    .map(([object, touched, extras, wrongs, drop]) => {
      const result: Record<string, unknown> = { ...object };
      touched.forEach((name, index) => {
        if (drop) delete result[name];
        else result[name] = wrongs[index];
      });
      for (const [name, value] of extras) result[name] = value;
      return result;
    });
}

const text = (value: string) => Buffer.from(value, 'utf8');

/** Percent-encodes the UTF-8 bytes (a lone surrogate becomes U+FFFD, as on the wire). */
const percentEncoded = (value: string) =>
  [...text(value)]
    .map((byte) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

/** A request body for a JSON schema: usually almost right, sometimes not JSON at all. */
function jsonBody(schema: JsonSchema | undefined): fc.Arbitrary<Buffer | undefined> {
  const object = schema ?? {};
  return fc.oneof(
    { weight: 4, arbitrary: nearlyValidObject(object).map((value) => text(JSON.stringify(value))) },
    { weight: 2, arbitrary: validObject(object).map((value) => text(JSON.stringify(value))) },
    { weight: 1, arbitrary: junk.map((value) => text(JSON.stringify(value))) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.constantFrom('{', '{"a":', '[1,2', 'null', 'undefined', '{"a":1}{"b":2}', '\ufeff{}'),
          fc.string({ maxLength: 60 }),
        )
        .map(text),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 60_000, max: 80_000 })
        .map((length) => text(JSON.stringify({ name: 'x'.repeat(length) }))),
    },
  );
}

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'APPLICATION/JSON; Charset=UTF-8',
      'application/json;charset=latin1',
      'application/vnd.api+json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/octet-stream',
      '',
      ';;;',
      'application/json; charset="',
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** JWT-shaped strings: three base64url parts with a header we control (alg none included). */
const jwtLike = fc
  .tuple(
    fc.constantFrom('{"alg":"none"}', '{"alg":"EdDSA","kid":"x"}', '{"alg":"HS256"}', 'garbage'),
    junk,
    fc.string({ maxLength: 40 }),
  )
  .map(([header, claims, signature]) =>
    [header, JSON.stringify(claims), signature]
      .map((part) => Buffer.from(part).toString('base64url'))
      .join('.'),
  );

/** Header values must be visible ASCII to be sent at all; anything else is left to the fuzzer. */
const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  maxLength: 80,
});

const authorization = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  // A valid token of the fuzzer's account: the request passes authentication and its body, query
  // and path are validated and used.
  { weight: 4, arbitrary: fc.constant(validTokenPlaceholder) },
  { weight: 2, arbitrary: jwtLike.map((token) => `Bearer ${token}`) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'Bearer',
      'Bearer ',
      'bearer  a.b.c  d',
      'Basic dXNlcjpwYXNz',
      'Bearer ey.ey.ey',
      `Bearer ${'a'.repeat(9_000)}`,
    ),
  },
  { weight: 1, arbitrary: headerText },
);

/** Headers every request may carry: junk API keys, forwarded headers, overlong values. */
const commonHeaders = fc.record(
  {
    authorization,
    'x-api-key': fc.oneof(word, headerText),
    'x-forwarded-host': word.map((host) => `${host}.attacker.test`),
    'x-forwarded-for': fc.ipV4(),
    origin: fc.constantFrom('https://evil.example', 'null', 'http://localhost:5173'),
    // Rare: a header block over the limit never reaches a handler.
    'x-overlong': fc.oneof(
      { weight: 19, arbitrary: fc.constant(undefined) },
      {
        weight: 1,
        arbitrary: fc.integer({ min: 8_000, max: 20_000 }).map((length) => 'h'.repeat(length)),
      },
    ),
    'idempotency-key': headerText,
  },
  { requiredKeys: [] },
);

/** Signature headers of the receivers: the right names with wrong or malformed values. */
const signatureHeaders = fc.record(
  {
    'x-gateway-a-signature': fc.oneof(digits(64), headerText),
    'x-razorpay-signature': fc.oneof(digits(64), headerText),
    'x-gateway-a-event-id': headerText,
    'gateway-b-signature': fc
      .tuple(fc.integer({ min: 0, max: 4_000_000_000 }), headerText)
      .map(([t, v1]) => `t=${t},v1=${v1}`),
    'stripe-signature': fc.oneof(headerText, fc.constant('t=,v1=,v1=')),
    'x-hub-signature-256': fc.oneof(
      headerText.map((value) => `sha256=${value}`),
      headerText,
    ),
  },
  { requiredKeys: [] },
);

/** A path parameter: an identifier we might have issued, or one built to break the router. */
const pathParameter = fc.oneof(
  { weight: 3, arbitrary: word.map((id) => `whk_${id}`) },
  { weight: 2, arbitrary: fc.constant(ownEndpointPlaceholder) },
  { weight: 1, arbitrary: fc.constantFrom('%zz', '%', '..', '%2F', '%00', '%E0%A4%A', 'a%20b') },
  { weight: 1, arbitrary: nastyString.map((value) => percentEncoded(value.slice(0, 200))) },
  { weight: 1, arbitrary: fc.constant('x'.repeat(5_000)) },
);

/** A query string from the declared parameters, each valid, wrong, missing or duplicated. */
function query(parameters: Parameter[]): fc.Arbitrary<string> {
  const declared = parameters.filter((parameter) => parameter.in === 'query');
  const pairs = declared.map((parameter) =>
    fc.option(
      fc
        .oneof(
          fc
            .oneof(validValue(parameter.schema ?? {}, parameter.name).map(String), nastyString)
            .map(percentEncoded),
          // Sent as they are: bad escapes, and a `+` that means a space in a query string.
          fc.constantFrom('%zz', '%', '+', '%2B1415', '+1415', '-1', '0', '1e9', 'true'),
        )
        .map((value) => `${parameter.name}=${value}`),
      { nil: undefined },
    ),
  );
  return fc
    .tuple(fc.tuple(...pairs), fc.array(fc.tuple(word, word), { maxLength: 2 }))
    .map(([declaredPairs, extra]) => {
      const all = [
        ...declaredPairs.filter((pair): pair is string => pair !== undefined),
        ...extra.map(([name, value]) => `${name}=${value}`),
      ];
      return all.length === 0 ? '' : `?${all.join('&')}`;
    });
}

/** A JSON value with its leaves replaced by wrong values here and there, and junk keys added. */
function mutated(template: unknown): fc.Arbitrary<unknown> {
  if (Array.isArray(template)) {
    return fc.oneof(
      fc.tuple(...template.map((item) => mutated(item))),
      wrongValue,
      fc.constant([]),
    );
  }
  if (typeof template === 'object' && template !== null) {
    const entries = Object.entries(template);
    return fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .tuple(
            fc.tuple(...entries.map(([, value]) => mutated(value))),
            fc.subarray(
              entries.map(([name]) => name),
              { maxLength: 1 },
            ),
            fc.array(fc.tuple(word, junk), { maxLength: 1 }),
          )
          .map(([values, dropped, extras]) => {
            const result: Record<string, unknown> = {};
            entries.forEach(([name], index) => {
              if (!dropped.includes(name)) result[name] = values[index];
            });
            for (const [name, value] of extras) result[name] = value;
            return result;
          }),
      },
      { weight: 1, arbitrary: wrongValue },
    );
  }
  return fc.oneof(
    { weight: 5, arbitrary: fc.constant(template) },
    { weight: 1, arbitrary: wrongValue },
  );
}

/** Each sender's events, to be mutated: what passes the signature reaches these parsers. */
/** Now, in Unix seconds: the templates' events are fresh, so a body gets past the age check. */
const createdNow = Math.floor(Date.now() / 1000);

const eventTemplates: Record<ReceiverSource, unknown[]> = {
  'gateway-a': [
    {
      entity: 'event',
      account_id: 'acc_fuzz',
      event: 'payment.captured',
      contains: ['payment'],
      payload: {
        payment: {
          entity: {
            id: 'pay_fuzz',
            amount: 1000,
            currency: 'INR',
            notes: { account_id: 'usr_fuzz' },
          },
        },
        subscription: {
          entity: { id: 'sub_fuzz', status: 'active', notes: { account_id: 'usr_fuzz' } },
        },
      },
      created_at: createdNow,
    },
  ],
  'gateway-b': [
    {
      id: 'evt_fuzz',
      object: 'event',
      type: 'payment_intent.succeeded',
      created: createdNow,
      data: {
        object: {
          id: 'pi_fuzz',
          amount: 2599,
          amount_received: 2599,
          currency: 'usd',
          metadata: { account_id: 'usr_fuzz' },
        },
      },
    },
  ],
  messaging: [
    {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '1',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                messages: [
                  {
                    from: '1650',
                    id: 'wamid.fuzz',
                    timestamp: String(createdNow),
                    type: 'text',
                    text: { body: 'hi' },
                  },
                ],
                statuses: [
                  {
                    id: 'wamid.fuzz',
                    status: 'delivered',
                    timestamp: String(createdNow),
                    recipient_id: '1650',
                  },
                ],
              },
            },
          ],
        },
      ],
    },
  ],
};

/**
 * A receiver call signed as its sender signs it: an event of the sender's shape with fields
 * broken here and there, or any JSON at all, so the body gets past the signature to the parser.
 */
function signedReceiverRequests(path: string, method: string, source: ReceiverSource) {
  const [template] = eventTemplates[source];
  return fc
    .tuple(
      fc.oneof(
        { weight: 3, arbitrary: mutated(template).map((value) => text(JSON.stringify(value))) },
        { weight: 1, arbitrary: jsonBody(undefined).map((body) => body ?? text('')) },
      ),
      fc.constantFrom('application/json', 'application/octet-stream', 'text/plain'),
      fc.option(headerText, { nil: undefined }),
    )
    .map(
      ([body, type, eventId]): FuzzRequest => ({
        operation: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        target: `/v1${path}`,
        headers: {
          'content-type': type,
          ...(eventId === undefined ? {} : { 'x-gateway-a-event-id': eventId }),
        },
        body,
        signedAs: source,
      }),
    );
}

/** Every way to call one operation of the document. */
function operationRequests(path: string, method: string, operation: Operation) {
  const parameters = operation.parameters ?? [];
  const isReceiver = operation['x-surface'] === 'function-url';
  const schema = operation.requestBody?.content['application/json']?.schema;
  const filledPath = fc.array(pathParameter, { minLength: 4, maxLength: 4 }).map((values) => {
    let index = 0;
    return path.replace(/\{[^}]+\}/g, () => values[index++] ?? 'x');
  });
  const body: fc.Arbitrary<Buffer | undefined> =
    method === 'get' && !isReceiver
      ? fc.constant(undefined)
      : isReceiver
        ? fc.oneof(
            jsonBody(undefined),
            fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b)),
          )
        : jsonBody(schema);
  return fc
    .tuple(
      filledPath,
      query(parameters),
      body,
      contentType,
      commonHeaders,
      isReceiver ? signatureHeaders : fc.constant({}),
      fc.constantFrom(method.toUpperCase(), method.toUpperCase(), 'DELETE', 'PATCH', 'OPTIONS'),
    )
    .map(([filled, search, payload, type, headers, signatures, verb]): FuzzRequest => {
      const all: Record<string, string> = { ...signatures };
      for (const [name, value] of Object.entries(headers))
        if (value !== undefined) all[name] = value;
      if (type !== undefined && payload !== undefined) all['content-type'] = type;
      if (verb === 'OPTIONS') all['access-control-request-method'] = method.toUpperCase();
      return {
        operation: `${method.toUpperCase()} ${path}`,
        method: verb,
        target: `/v1${filled}${search}`,
        headers: all,
        body: payload,
      };
    });
}

/** Requests to no operation at all: unknown, overlong and malformed paths, odd methods. */
const strayRequests = fc
  .tuple(
    fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE'),
    fc.oneof(
      word.map((segment) => `/v1/${segment}`),
      fc.constantFrom('/', '/v1', '/v1/', '//v1/openapi.json', '/v1/%zz', '/v1/auth/../profile'),
      fc.integer({ min: 2_000, max: 12_000 }).map((length) => `/v1/${'a'.repeat(length)}`),
      fc.array(word, { maxLength: 30 }).map((segments) => `/v1/${segments.join('/')}`),
    ),
    commonHeaders,
  )
  .map(([method, target, headers]): FuzzRequest => {
    const all: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) all[name] = value;
    return { operation: 'stray', method, target, headers: all };
  });

/** Every operation of the document, fuzzed, plus stray requests to no operation. */
export function fuzzRequests(document: OpenApiDocument): fc.Arbitrary<FuzzRequest> {
  const perOperation = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const source = receiverSources[path];
      const fuzzed = operationRequests(path, method, operation);
      return source === undefined || method !== 'post'
        ? fuzzed
        : fc.oneof(fuzzed, signedReceiverRequests(path, method, source));
    }),
  );
  return fc.oneof(
    { weight: 12, arbitrary: fc.oneof(...perOperation) },
    { weight: 1, arbitrary: strayRequests },
  );
}
