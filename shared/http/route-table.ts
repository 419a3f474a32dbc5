import type { SecretName } from '../config.js';
import type {
  Answer,
  ApiOperation,
  BackgroundOperation,
  HttpMethod,
  ReceiverOperation,
} from './operation.js';

export type { Auth, HttpMethod, Needs } from './operation.js';

/**
 * The route table's types and how it is made from the operations' definitions. The list itself is
 * `functions/routes.ts`: the definitions live beside their handlers, in the functions layer, and
 * nothing under shared/ imports from functions/ (functions → http → adapters → domain). What
 * reads the table — the stack, the local runtime, the OpenAPI generator — is handed it.
 */

export type ApiRoute = ApiOperation;
export type FunctionUrlRoute = ReceiverOperation;
export type BackgroundRoute = BackgroundOperation;
export type Route = ApiRoute | FunctionUrlRoute | BackgroundRoute;
export type HttpRouteEntry = ApiRoute | FunctionUrlRoute;

/** The secret a route's definition implies: a receiver checks its calls with its `secret`. */
function impliedSecret(route: Route): SecretName | undefined {
  return route.surface === 'function-url' ? route.secret : undefined;
}

/** A definition with what it implies added to its needs. Added here, never by hand. */
function withImpliedNeeds(route: Route): Route {
  const implied = impliedSecret(route);
  if (implied === undefined) return route;
  const secrets = [...new Set([implied, ...(route.needs.secrets ?? [])])];
  return { ...route, needs: { ...route.needs, secrets } };
}

const isHttpRoute = (route: Route): route is HttpRouteEntry =>
  route.surface === 'api' || route.surface === 'function-url';

/** An HTTP route with a method of its own: an operation the OpenAPI document describes. */
export type DocumentedRoute = HttpRouteEntry & { method: HttpMethod };

export interface RouteTable {
  /** Every operation, with what its `auth` or its receiver `secret` implies added to its needs. */
  routes: Route[];
  /** Those served over HTTP (API Gateway and Function URLs). */
  httpRoutes: HttpRouteEntry[];
  /** The operations of the API, which the OpenAPI document describes: all but the catch-all. */
  operations: DocumentedRoute[];
}

/** The table of the service's operations, made from their definitions. */
/** A definition module as the table lists it: its operation and, if it has one, its answer. */
export interface Definition {
  operation: Route;
  answer?: Answer;
}

export function routeTable(definitions: readonly Definition[]): RouteTable {
  const routes = definitions.map(({ operation, answer }) =>
    withImpliedNeeds(
      answer !== undefined && isHttpRoute(operation) ? { ...operation, answer } : operation,
    ),
  );
  const httpRoutes = routes.filter(isHttpRoute);
  const operations = httpRoutes.filter((route): route is DocumentedRoute => route.method !== 'ANY');
  return { routes, httpRoutes, operations };
}
