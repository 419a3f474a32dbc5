/**
 * The document's `servers`: the service's own public addresses (client apps call it from the
 * internet). Apart from openapi.ts so that the function serving the built document does not bundle
 * the document's builder.
 */
export const serversOf = (urls: readonly string[]) =>
  urls.map((url) => ({ url, 'x-internal': false }));
