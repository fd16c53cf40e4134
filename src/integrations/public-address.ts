/**
 * Which addresses outbound HTTP may connect to (`outbound-http.ts`): public unicast only.
 * Deny-lists (not ipaddr.js `range() === 'unicast'`, which lets `::7f00:1` and `::5efe:7f00:1`
 * through): the union of the ranges Svix and Hook0 refuse.
 */
import ipaddr from 'ipaddr.js';

const blockedV4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
].map((cidr) => ipaddr.IPv4.parseCIDR(cidr));

const blockedV6 = [
  '::/8', // unspecified, loopback, IPv4-compatible, IPv4-mapped, IPv4-translated, ISATAP spellings
  '100::/64', // discard-only
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4 (embeds an IPv4 that a relay would reach)
  '3fff::/20', // documentation
  '5f00::/16', // segment routing
  'fc00::/7', // unique local (includes AWS IMDSv6 fd00:ec2::254)
  'fe80::/10', // link-local
  'fec0::/10', // deprecated site-local
  'ff00::/8', // multicast
].map((cidr) => ipaddr.IPv6.parseCIDR(cidr));

// 2001::/23 is IETF protocol assignments; only these parts of it are globally reachable (IANA).
const ietfV6 = ipaddr.IPv6.parseCIDR('2001::/23');
const ietfGlobalV6 = ['2001:1::1/128', '2001:1::2/128', '2001:3::/32', '2001:4:112::/48', '2001:20::/28', '2001:30::/28'].map(
  (cidr) => ipaddr.IPv6.parseCIDR(cidr),
);

// NAT64 well-known prefix: judged by the IPv4 address it embeds (refusing it would break
// delivery on NAT64/DNS64 networks).
const nat64V6 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

function isForbiddenV4(address: ipaddr.IPv4): boolean {
  return blockedV4.some((cidr) => address.match(cidr));
}

function isForbiddenV6(address: ipaddr.IPv6): boolean {
  if (address.match(nat64V6)) {
    const parts = address.parts;
    const embedded = new ipaddr.IPv4([parts[6]! >> 8, parts[6]! & 0xff, parts[7]! >> 8, parts[7]! & 0xff]);
    return isForbiddenV4(embedded);
  }
  if (address.match(ietfV6)) return !ietfGlobalV6.some((cidr) => address.match(cidr));
  return blockedV6.some((cidr) => address.match(cidr));
}

/** True when `ip` (an IPv4 or IPv6 literal, no brackets) is not a public unicast address. */
export function isForbiddenAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return true;
  const address = ipaddr.parse(ip);
  return address.kind() === 'ipv4' ? isForbiddenV4(address as ipaddr.IPv4) : isForbiddenV6(address as ipaddr.IPv6);
}
