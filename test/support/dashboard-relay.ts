import { dashboardCalls } from '../../infra/dashboard-calls.js';
import { viewerRequestFunctionCode } from '../../infra/dashboard-site.js';

/** A viewer's request as CloudFront Functions hands it to the relay function. */
export interface ViewerRequest {
  viewer: { ip: string };
  request: { method: string; uri: string; headers: Record<string, { value: string }> };
}

/** What the relay function returns: the request it relays, or the answer it gives instead. */
export type RelayAnswer =
  | { headers: Record<string, { value: string }> }
  | { statusCode: number; headers: Record<string, { value: string }>; body: { data: string } };

/**
 * The stage's relay function (infra/dashboard-site.ts), built from the dashboard's calls as the
 * synth builds it, and run as CloudFront Functions runs it (JavaScript 2.0).
 */
export const relay = new Function(
  `${viewerRequestFunctionCode(dashboardCalls())}; return handler;`,
)() as (event: ViewerRequest) => Promise<RelayAnswer>;

/** Whether the relay passes a viewer's request on to the API. */
export const relays = async (method: string, uri: string): Promise<boolean> =>
  !(
    'statusCode' in
    (await relay({ viewer: { ip: '203.0.113.9' }, request: { method, uri, headers: {} } }))
  );
