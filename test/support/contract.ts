import { appendFileSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { operations as routeOperations } from '../../functions/routes.js';
import { type ApiClient, createApiClient } from '../../shared/http/client/api-client.js';
import { openApiDocument } from '../../shared/http/openapi.js';

/**
 * The contract test: every answer the end-to-end suite receives is held to the OpenAPI document
 * the service serves — its status must be documented for that operation, its body must match the
 * documented schema, its required headers must be there — and so is every request the service
 * accepted (answered 2xx), when the caller hands it over: each query parameter and each header
 * it sent beyond HTTP's own must be declared (as a parameter, or as the header of one of the
 * operation's security schemes), and a body needs a declared request body of its media type,
 * whose schema a JSON body must match. A mismatch fails the test that got the answer. Each
 * checked operation and status is also written to test-results/contract/, which
 * `npm run contract:coverage` reads to list the operations the suite never reached.
 */

type Json = Record<string, unknown>;

interface Operation {
  id: string;
  method: string;
  segments: string[];
  responses: Record<string, Json>;
  pointer: string;
  /** What a request may carry: its declared query parameters and (lower-cased) headers. */
  query: Set<string>;
  headers: Set<string>;
  /** The media types of its declared request body (none without one). */
  bodyTypes: string[];
}

const base = 'https://contract.test/openapi.json';
const document = openApiDocument(routeOperations, ['http://localhost/v1']) as {
  paths: Record<string, Record<string, Json>>;
  components: { headers: Record<string, Json>; securitySchemes: Record<string, Json> };
};

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ ...document, $id: base });

/**
 * Requests are held to their schemas' structure — fields, types, bounds — but not to the formats
 * they name: the document states the canonical form the service answers with, and the service
 * takes more (an email with spaces around it is trimmed, not refused).
 */
const requestAjv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
requestAjv.addSchema({ ...document, $id: base });

const pointerPart = (part: string) => part.replaceAll('~', '~0').replaceAll('/', '~1');

/** The header a security scheme is sent in (a Bearer token and SigV4 in Authorization). */
function schemeHeader(name: string): string | undefined {
  const scheme = document.components.securitySchemes[name] ?? {};
  if (scheme.type === 'http') return 'authorization';
  return scheme.in === 'header' ? String(scheme.name).toLowerCase() : undefined;
}

/** The parameters of an operation declared `in` one place, by name (headers lower-cased). */
function declared(operation: Json, place: 'query' | 'header'): Set<string> {
  const parameters = (operation.parameters ?? []) as Json[];
  const names = parameters
    .filter((parameter) => parameter.in === place)
    .map((parameter) => String(parameter.name));
  return new Set(place === 'header' ? names.map((name) => name.toLowerCase()) : names);
}

const operations: Operation[] = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => {
    const security = (operation.security ?? []) as Record<string, unknown>[];
    const schemeHeaders = security
      .flatMap((alternative) => Object.keys(alternative).map(schemeHeader))
      .filter((header): header is string => header !== undefined);
    const requestBody = operation.requestBody as { content: Json } | undefined;
    return {
      id: String(operation.operationId),
      method: method.toUpperCase(),
      segments: path.split('/'),
      responses: operation.responses as Record<string, Json>,
      pointer: `#/paths/${pointerPart(path)}/${method}`,
      query: declared(operation, 'query'),
      headers: new Set([...declared(operation, 'header'), ...schemeHeaders]),
      bodyTypes: Object.keys(requestBody?.content ?? {}),
    };
  }),
);

/**
 * Headers of HTTP itself and of the fetch that sends the request, which no operation declares:
 * framing, content negotiation, the client's own name, and a browser's Origin (CORS, which the
 * document states in its answers' Access-Control-Allow-Origin).
 */
const protocolHeaders = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'connection',
  'content-length',
  'content-type',
  'host',
  'origin',
  'sec-fetch-mode',
  'transfer-encoding',
  'user-agent',
]);

/** The documented operation for a request path below /v1; literal segments win over {params}. */
function operationFor(method: string, path: string): Operation | undefined {
  const segments = new URL(path, 'http://localhost').pathname.split('/');
  const matches = operations.filter(
    (operation) =>
      operation.method === method &&
      operation.segments.length === segments.length &&
      operation.segments.every(
        (segment, index) => segment.startsWith('{') || segment === segments[index],
      ),
  );
  const literals = (operation: Operation) =>
    operation.segments.filter((segment) => !segment.startsWith('{')).length;
  return matches.sort((a, b) => literals(b) - literals(a))[0];
}

/** A response header's declaration, through its component reference. */
const headerObject = (declared: Json): Json =>
  typeof declared.$ref === 'string'
    ? (document.components.headers[declared.$ref.split('/').pop() ?? ''] ?? {})
    : declared;

const validators = new Map<string, ValidateFunction>();

function validatorFor(pointer: string, compiler = ajv): ValidateFunction {
  let validate = validators.get(pointer);
  if (validate === undefined) {
    validate = compiler.compile({ $ref: `${base}${pointer}` });
    validators.set(pointer, validate);
  }
  return validate;
}

const coverageDirectory = resolve(import.meta.dirname, '..', '..', 'test-results', 'contract');
mkdirSync(coverageDirectory, { recursive: true });
const coverageFile = resolve(coverageDirectory, `${process.pid}.log`);

export interface ContractAnswer {
  status: number;
  headers: Headers;
  /** The body as received: parsed JSON, or the text of a non-JSON answer. */
  body: unknown;
}

/** A request as it was sent. */
export interface ContractRequest {
  headers: Headers;
  /** The body as sent, if it had one. */
  body?: string | Buffer;
}

const mediaTypeOf = (headers: Headers): string =>
  (headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

/** Throws, naming what, when an accepted request carried something the document does not declare. */
function checkRequest(operation: Operation, path: string, request: ContractRequest, where: string) {
  for (const name of new URL(path, 'http://localhost').searchParams.keys()) {
    if (!operation.query.has(name)) {
      throw new Error(`contract: query parameter ${name} is not declared for ${where}`);
    }
  }
  for (const [name] of request.headers) {
    if (!protocolHeaders.has(name) && !operation.headers.has(name)) {
      throw new Error(`contract: header ${name} is not declared for ${where}`);
    }
  }
  if (request.body === undefined || request.body.length === 0) return;
  const mediaType = mediaTypeOf(request.headers);
  if (!operation.bodyTypes.includes(mediaType) && !operation.bodyTypes.includes('*/*')) {
    throw new Error(
      `contract: a ${mediaType || 'body without a content type'} is not a declared request body of ${where}`,
    );
  }
  if (mediaType === 'application/json') {
    const validate = validatorFor(
      `${operation.pointer}/requestBody/content/application~1json/schema`,
      requestAjv,
    );
    const body = JSON.parse(request.body.toString());
    if (!validate(body)) {
      throw new Error(
        `contract: the request body of ${where} does not match the document: ${requestAjv.errorsText(validate.errors)}`,
      );
    }
  }
}

/**
 * Throws, naming the operation, when the answer is not what the document says `method path`
 * answers, or when the `request`, if given and accepted, carried what the document does not
 * declare. `path` is below /v1. A path no operation serves must be the 404 envelope.
 */
export function checkContract(
  method: string,
  path: string,
  answer: ContractAnswer,
  request?: ContractRequest,
): void {
  const operation = operationFor(method.toUpperCase(), path);
  const id = operation?.id ?? 'notFound';
  const where = `${method} ${path} → ${answer.status} (${id})`;
  if (operation === undefined) {
    if (answer.status !== 404 && answer.status !== 429) {
      throw new Error(`contract: no documented operation serves ${where}`);
    }
    return;
  }
  const response = operation.responses[String(answer.status)];
  if (response === undefined) {
    throw new Error(`contract: status ${answer.status} is not documented for ${where}`);
  }
  if (request !== undefined && answer.status < 300) checkRequest(operation, path, request, where);
  for (const [header, declared] of Object.entries(
    (response.headers ?? {}) as Record<string, Json>,
  )) {
    if (headerObject(declared).required === true && !answer.headers.has(header)) {
      throw new Error(`contract: header ${header} missing from ${where}`);
    }
  }
  const content = response.content as Record<string, Json> | undefined;
  const mediaType = mediaTypeOf(answer.headers);
  if (content !== undefined && content[mediaType] === undefined) {
    throw new Error(`contract: ${where} answered ${mediaType || 'no content type'}`);
  }
  if (mediaType === 'application/json') {
    const validate = validatorFor(
      `${operation.pointer}/responses/${answer.status}/content/application~1json/schema`,
    );
    if (!validate(answer.body)) {
      throw new Error(
        `contract: the body of ${where} does not match the document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(answer.body)}`,
      );
    }
  }
  appendFileSync(coverageFile, `${id} ${answer.status}\n`);
}

/** The body of an answer as checkContract takes it: JSON parsed, anything else as text. */
async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  const json = /^application\/json\b/i.test(response.headers.get('content-type') ?? '');
  return json && text !== '' ? JSON.parse(text) : text;
}

/**
 * The typed client (shared/http/client) of the service at `baseUrl` (ending in /v1), every
 * answer of which is held to the document before the test sees it.
 */
export function checkedApiClient(baseUrl: string): ApiClient {
  const api = createApiClient(baseUrl);
  const basePath = new URL(baseUrl).pathname;
  // The body each request sent, read before fetch consumes it.
  const sent = new WeakMap<Request, string>();
  api.use({
    async onRequest({ request }) {
      sent.set(request, await request.clone().text());
    },
    async onResponse({ request, response }) {
      const url = new URL(request.url);
      checkContract(
        request.method,
        `${url.pathname.slice(basePath.length)}${url.search}`,
        {
          status: response.status,
          headers: response.headers,
          body: await bodyOf(response.clone()),
        },
        { headers: request.headers, body: sent.get(request) },
      );
    },
  });
  return api;
}
