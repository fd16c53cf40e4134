import ipaddr from 'ipaddr.js';

/** Whether a client address is this machine (127.0.0.0/8, ::1, or IPv4 loopback mapped into IPv6). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined || !ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address); // unwraps ::ffff:127.0.0.1
  return parsed.range() === 'loopback';
}
