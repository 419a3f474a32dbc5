import { isIP, isIPv6 } from 'node:net';
import { dashboardApiKeyId } from '../config.js';

/**
 * The header in which the stage's CloudFront distribution hands the dashboard viewer's address to
 * the API: a viewer-request function writes it from the connection CloudFront accepted, replacing
 * any value the viewer sent (infra/dashboard-site.ts). The web ACL counts the same header.
 */
export const viewerAddressHeader = 'true-client-ip';

/**
 * The header in which the same function writes the viewer's network: the address for IPv4, the
 * first address of its /64 for IPv6 (`2001:db8:1:2::`). The web ACL counts dashboard viewers by
 * it, as `countingSource` counts them in the API: one subscriber's /64 is one viewer.
 */
export const viewerNetworkHeader = 'x-viewer-network';

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

/** Bits of an IPv6 address that one subscriber holds at least (RFC 6177: a /64 or shorter). */
const subscriberPrefixBits = 64;

/**
 * Who the per-address limits count for a caller's address (docs/api-contract.md, "Who the rate
 * limiter counts"): an IPv4 address as it is; an IPv6 address by its /64 (`2001:db8:1:2::/64`), because one subscriber
 * holds a whole /64 at least and can take a fresh address from it for every request; an
 * IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, how a dual-stack socket shows an IPv4 peer) as
 * the IPv4 address it carries. Anything else (no address known) as it is.
 *
 * The one place the counting key is derived: the HTTP layer hands it to every operation as
 * `ApiRequest.sourceIp`, so the per-client limiter (`clientOf`), the route limits keyed on the
 * client, the login throttle and every other per-source count take it; the address shown to
 * users (a session's `ip_address`) is `ApiRequest.address`, in full.
 */
export function countingSource(address: string): string {
  const literal = address.replace(/%.*$/, '');
  if (!isIPv6(literal)) return address;
  const groups = ipv6Groups(literal);
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (mapped) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  const network = [...groups.slice(0, subscriberPrefixBits / 16), 0, 0, 0, 0];
  // The URL parser writes IPv6 in its canonical (RFC 5952) form: lower case, zeros compressed.
  const canonical = new URL(`http://[${network.map((group) => group.toString(16)).join(':')}]`);
  return `${canonical.hostname.slice(1, -1)}/${subscriberPrefixBits}`;
}

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted IPv4 included). */
function ipv6Groups(address: string): number[] {
  // The URL parser turns a dotted IPv4 tail into two hex groups and validates the rest.
  const canonical = new URL(`http://[${address}]`).hostname.slice(1, -1);
  const [head = '', tail] = canonical.split('::');
  const groupsOf = (part: string) =>
    part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16));
  const first = groupsOf(head);
  const last = tail === undefined ? [] : groupsOf(tail);
  return [...first, ...Array<number>(8 - first.length - last.length).fill(0), ...last];
}
