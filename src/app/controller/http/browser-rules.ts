// What the dashboard port on this machine forwards. Every local user can connect to a
// TCP port on 127.0.0.1, and the scheduler's HTTP API has no authentication (a POST to
// /api/v1/retire_workers retires any worker), so that port serves what a browser needs
// and nothing that acts: GET and HEAD only, nothing under /api/ (Dask's API) or /proxy/
// (Dask's proxy to any host:port the scheduler can reach), and only for a loopback Host
// (a web page in the owner's browser cannot rebind a name of its own to it). The owner
// has the whole API on a socket in the cluster's 0700 dir (api-socket.ts).
const READ_METHODS = new Set(['GET', 'HEAD']);
const HIDDEN = /^\/(api|proxy)(\/|$)/;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Why a request from the shared port is refused, or undefined to forward it. */
export function browserRefusal(
  method: string | undefined,
  url: string | undefined,
  host: string | undefined,
): string | undefined {
  if (!method || !READ_METHODS.has(method))
    return `${method ?? 'this method'} is not forwarded on this port (GET and HEAD only)`;
  const p = normalizedPath(url);
  if (p === undefined) return 'this request target is not forwarded on this port';
  if (HIDDEN.test(p))
    return `the scheduler's ${p.startsWith('/api') ? 'HTTP API' : 'proxy'} is not forwarded on this port`;
  if (!isLoopbackHost(host)) return `Host "${host ?? ''}" is not this machine's loopback`;
  return undefined;
}

/**
 * The path as the scheduler may read it: percent-decoded (repeatedly), backslashes
 * as slashes, repeated slashes and dot segments folded, lower-cased. Anything that is
 * not origin-form (`/…`) is refused.
 */
export function normalizedPath(url: string | undefined): string | undefined {
  if (!url?.startsWith('/')) return undefined;
  let p = url.split(/[?#]/, 1)[0]!;
  for (let i = 0; i < 3 && p.includes('%'); i++) {
    try {
      p = decodeURIComponent(p);
    } catch {
      return undefined;
    }
  }
  p = p.replace(/\\/g, '/').replace(/\/{2,}/g, '/');
  return new URL(p, 'http://h').pathname.replace(/\/{2,}/g, '/').toLowerCase();
}

function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
  return LOOPBACK_HOSTS.has(name.toLowerCase());
}

/** The explanation sent with a refusal (403): what to use instead. */
export function refusalBody(why: string): string {
  return (
    `sshcluster: refused: ${why}.\n` +
    'This port is reachable by every user of this machine, so it forwards the dashboard only.\n' +
    'Use sshcluster status/scale/adapt, or the owner-only socket http.sock in the cluster state dir.\n'
  );
}
