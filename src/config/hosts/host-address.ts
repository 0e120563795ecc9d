// "user@host:port" as OpenSSH's ProxyJump and the host list accept it. The host part
// may be a pdsh range ("node[01-04]"), so an IPv6 literal must be bracketed *and*
// contain ":" to be told apart ("[::1]:22"); an unbracketed one cannot carry a port.
import type { HostAddress } from '../schema.js';

export function parseHostAddress(input: string): HostAddress {
  const text = input.trim().replace(/^ssh:\/\//, '');
  if (text === '' || /\s/.test(text))
    throw new Error(`expected a host like "node1" or "user@node1:22", got "${input}"`);
  const at = text.lastIndexOf('@');
  const user = at === -1 ? undefined : text.slice(0, at);
  if (user === '') throw new Error(`empty user name in "${input}"`);
  const { host, port } = splitPort(at === -1 ? text : text.slice(at + 1), input);
  if (host === '') throw new Error(`empty host name in "${input}"`);
  return { host, ...(user === undefined ? {} : { user }), ...(port === undefined ? {} : { port }) };
}

function splitPort(rest: string, input: string): { host: string; port?: number } {
  const ipv6 = /^\[([^\]]*:[^\]]*)\](?::(.*))?$/.exec(rest);
  if (ipv6) return { host: ipv6[1] ?? '', ...portOf(ipv6[2], input) };
  const colons = rest.split(':').length - 1;
  if (colons !== 1) return { host: rest };
  const i = rest.indexOf(':');
  return { host: rest.slice(0, i), ...portOf(rest.slice(i + 1), input) };
}

function portOf(text: string | undefined, input: string): { port?: number } {
  if (text === undefined) return {};
  const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= 65535)) throw new Error(`bad port "${text}" in "${input}": expected 1-65535`);
  return { port: n };
}

/** A ProxyJump value: comma-separated hops, or "none". */
export function parseJumpList(value: string): HostAddress[] {
  if (value.trim().toLowerCase() === 'none') return [];
  return value.split(',').map((hop) => parseHostAddress(hop));
}
