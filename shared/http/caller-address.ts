import { isIP } from 'node:net';
import { dashboardApiKeyId } from '../config.js';

/**
 * The header in which the stage's CloudFront distribution hands the dashboard viewer's address to
 * the API: a viewer-request function writes it from the connection CloudFront accepted, replacing
 * any value the viewer sent (infra/dashboard-site.ts). The web ACL counts the same header.
 */
export const viewerAddressHeader = 'true-client-ip';

/**
 * Whose address a request comes from. Behind the dashboard's distribution, `identity.sourceIp`
 * is a CloudFront edge that every viewer of that edge shares, so the viewer's address is taken
 * from `viewerAddressHeader` — but only when API Gateway accepted the dashboard's own key, which
 * only the distribution holds (DASHBOARD_API_KEY_ID): from any other caller that header is just
 * text the caller wrote, and a fresh value per request would buy a fresh window.
 */
export function callerAddress(
  identity: { apiKeyId?: string | null; sourceIp?: string } | undefined,
  headers: Record<string, string>,
): string {
  const sourceIp = identity?.sourceIp ?? 'unknown';
  const relayKeyId = dashboardApiKeyId();
  if (relayKeyId === undefined || identity?.apiKeyId !== relayKeyId) return sourceIp;
  const viewer = headers[viewerAddressHeader]?.trim() ?? '';
  return isIP(viewer) === 0 ? sourceIp : viewer;
}
