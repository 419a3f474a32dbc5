/**
 * Which IP addresses a webhook may be delivered to (the SSRF guard's rule). Pure: the adapters
 * resolve names and connect; this only classifies an address.
 *
 * - public: deliverable;
 * - private: loopback, RFC 1918, CGNAT, unique-local, link-local — only when the local runtime
 *   explicitly allows private networks (WEBHOOK_ALLOW_PRIVATE_NETWORK, for tests);
 * - forbidden: never — cloud metadata services, unspecified, multicast, broadcast, reserved and
 *   documentation ranges, and anything that is not an IP address at all.
 */
export type AddressClass = 'public' | 'private' | 'forbidden';

interface Range {
  base: bigint;
  bits: number;
}

function parseIPv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    // Canonical dotted decimal only: resolvers and the URL parser already turned octal, hex and
    // single-number forms (0177.0.0.1, 2130706433) into this; anything else is refused.
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return undefined;
    value = (value << 8n) | BigInt(part);
  }
  return value;
}

function parseIPv6(text: string): bigint | undefined {
  let input = text.toLowerCase();
  const zone = input.indexOf('%');
  if (zone !== -1) input = input.slice(0, zone);
  // A trailing dotted IPv4 (::ffff:127.0.0.1) stands for the last two groups.
  const lastColon = input.lastIndexOf(':');
  const tail = input.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIPv4(tail);
    if (v4 === undefined) return undefined;
    input = `${input.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = input.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (half: string) => (half === '' ? [] : half.split(':'));
  const head = groupsOf(halves[0] ?? '');
  const rest = halves.length === 2 ? groupsOf(halves[1] ?? '') : [];
  const missing = 8 - head.length - rest.length;
  if ((halves.length === 2 && missing < 1) || (halves.length === 1 && missing !== 0)) {
    return undefined;
  }
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  let value = 0n;
  for (const group of groups) {
    if (!/^[0-9a-f]{1,4}$/.test(group)) return undefined;
    value = (value << 16n) | BigInt(`0x${group}`);
  }
  return value;
}

const v4 = (cidr: string): Range => {
  const [address = '', bits = '32'] = cidr.split('/');
  return { base: parseIPv4(address) ?? 0n, bits: Number(bits) };
};
const v6 = (cidr: string): Range => {
  const [address = '', bits = '128'] = cidr.split('/');
  return { base: parseIPv6(address) ?? 0n, bits: Number(bits) };
};

const inRange = (value: bigint, width: number, range: Range): boolean =>
  value >> BigInt(width - range.bits) === range.base >> BigInt(width - range.bits);

const v4Forbidden = [
  '169.254.169.254/32', // EC2/EKS instance metadata
  '169.254.170.2/32', // ECS task metadata
  '100.100.100.200/32', // Alibaba Cloud metadata
  '0.0.0.0/8', // "this network"
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation
  '203.0.113.0/24', // documentation
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and 255.255.255.255 broadcast
].map(v4);

const v4Private = [
  '127.0.0.0/8', // loopback
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10', // CGNAT
  '169.254.0.0/16', // link-local
].map(v4);

const v6Forbidden = [
  'fd00:ec2::254/128', // EC2 instance metadata over IPv6
  '::/128', // unspecified
  'ff00::/8', // multicast
  '2001:db8::/32', // documentation
  '100::/64', // discard
  // Teredo: the client's IPv4 address (XOR-obfuscated) and the server's are both inside; no
  // webhook receiver is reached through Teredo, so none is worth judging them.
  '2001::/32',
  // Local-use NAT64 (RFC 8215): the operator picks the prefix length (/48 to /96), and RFC 6052
  // puts the IPv4 address in different bits for each — 64:ff9b:1:7f00:0:100:808:808 is 8.8.8.8
  // read as /96 but 127.0.0.1 through a /48 translator. No single reading is safe.
  '64:ff9b:1::/48',
  'fec0::/10', // deprecated site-local
].map(v6);

const v6Private = [
  '::1/128', // loopback
  'fc00::/7', // unique local
  'fe80::/10', // link-local
].map(v6);

/**
 * IPv6 forms that carry an IPv4 address, which is what gets reached (through the host's own
 * stack, a translator or a relay): judge that one, as if it had been written as IPv4.
 */
const v6Embedding = [
  { range: v6('::ffff:0:0/96'), shift: 0n }, // IPv4-mapped
  { range: v6('::ffff:0:0:0/96'), shift: 0n }, // IPv4-translated (SIIT, RFC 2765)
  { range: v6('::/96'), shift: 0n }, // IPv4-compatible (deprecated)
  { range: v6('64:ff9b::/96'), shift: 0n }, // NAT64 well-known prefix: /96 only (RFC 6052)
  { range: v6('2002::/16'), shift: 80n }, // 6to4: bits 16–47
];

function classifyIPv4(value: bigint): AddressClass {
  if (v4Forbidden.some((range) => inRange(value, 32, range))) return 'forbidden';
  if (v4Private.some((range) => inRange(value, 32, range))) return 'private';
  return 'public';
}

export function classifyAddress(address: string): AddressClass {
  const literal = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const ipv4 = parseIPv4(literal);
  if (ipv4 !== undefined) return classifyIPv4(ipv4);
  const ipv6 = parseIPv6(literal);
  if (ipv6 === undefined || !literal.includes(':')) return 'forbidden';
  if (v6Forbidden.some((range) => inRange(ipv6, 128, range))) return 'forbidden';
  if (v6Private.some((range) => inRange(ipv6, 128, range))) return 'private';
  for (const { range, shift } of v6Embedding) {
    if (inRange(ipv6, 128, range)) return classifyIPv4((ipv6 >> shift) & 0xffffffffn);
  }
  return 'public';
}

/**
 * The form of a webhook URL that is stored, shown and used: the WHATWG parser's `href`, without
 * the fragment (never sent). Keeping the text as typed would let another parser read it
 * differently from the guard: `https://8.8.8.8\@127.0.0.1/` is host 8.8.8.8 with path
 * `/@127.0.0.1/` here, but 127.0.0.1 with credentials to a lenient parser. Undefined when it is
 * not an absolute URL.
 */
export function canonicalUrl(text: string): string | undefined {
  try {
    const url = new URL(text);
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}

/** Whether an address may receive a delivery under the current setting. */
export function isDeliverableAddress(address: string, allowPrivateNetwork: boolean): boolean {
  const kind = classifyAddress(address);
  return kind === 'public' || (kind === 'private' && allowPrivateNetwork);
}
