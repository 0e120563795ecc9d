import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { run } from './proc.js';

/** ed25519 key without passphrase; returns the private key path (public is `.pub`). */
export function makeKey(path: string, comment: string): string {
  run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', path]);
  return path;
}

export function sshdConfig(o: {
  ip: string;
  port: number;
  hostKey: string;
  authorizedKeys: string;
  pidFile: string;
}): string {
  return [
    `ListenAddress ${o.ip}`,
    `Port ${o.port}`,
    `HostKey ${o.hostKey}`,
    `AuthorizedKeysFile ${o.authorizedKeys}`,
    'PermitRootLogin prohibit-password',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'UsePAM no',
    // Keys live in a mkdtemp dir under /tmp, whose modes StrictModes would reject.
    'StrictModes no',
    `PidFile ${o.pidFile}`,
    // sshcluster opens many connections at once; the default 10:30:100 drops some.
    'MaxStartups 100:30:200',
    'LogLevel VERBOSE',
    'PrintMotd no',
    'Subsystem sftp internal-sftp',
    '',
  ].join('\n');
}

export interface SshdHandle {
  pid: number;
  logPath: string;
  exited: () => boolean;
}

/**
 * Starts `sshd -D -e` (inside `ns` unless ns is ''), stderr to a log file in dir. With
 * `bashrc`, that file stands in for the login user's ~/.bashrc in every session of this
 * sshd: bound over it in the private mount namespace `ip netns exec` gives sshd, so the
 * machine's own file is never touched and the binding ends with sshd.
 */
export function startSshd(dir: string, i: number, ns: string, cfg: string, bashrc?: string): SshdHandle {
  mkdirSync('/run/sshd', { recursive: true }); // privilege separation dir, absent on this image
  const cfgPath = join(dir, `sshd-${i}.conf`);
  writeFileSync(cfgPath, cfg);
  const logPath = join(dir, `sshd-${i}.log`);
  const log = openSync(logPath, 'a');
  let argv = ['/usr/sbin/sshd', '-D', '-e', '-f', cfgPath];
  if (bashrc !== undefined) {
    if (ns === '') throw new Error('startSshd: a stand-in .bashrc needs a network namespace (its mount namespace)');
    const target = join(homedir(), '.bashrc');
    if (!existsSync(target)) throw new Error(`startSshd: no ${target} to stand in for (a bind needs a file to cover)`);
    argv = ['sh', '-c', 'mount --bind "$0" "$1" && shift && exec "$@"', bashrc, target, ...argv];
  }
  // `ip netns exec` execs sshd in place (and `sh -c … exec` does too), so the child PID is sshd's own.
  const child =
    ns === ''
      ? spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', log, log] })
      : spawn('ip', ['netns', 'exec', ns, ...argv], { stdio: ['ignore', log, log] });
  closeSync(log);
  let done = false;
  child.on('exit', () => (done = true));
  child.on('error', () => (done = true));
  child.unref(); // a script that forgets teardown still exits (its 'exit' hook cleans up)
  if (child.pid === undefined) throw new Error(`sshd ${i}: spawn failed`);
  return { pid: child.pid, logPath, exited: () => done };
}

function tryConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect({ host, port, timeout: 500 });
    const finish = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.once('connect', () => finish(true));
    sock.once('error', () => finish(false));
    sock.once('timeout', () => finish(false));
  });
}

/** Polls until sshd accepts TCP; fails early with the log tail if sshd died. */
export async function waitForSshd(h: SshdHandle, ip: string, port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (h.exited()) break;
    if (await tryConnect(ip, port)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  const tail = readFileSync(h.logPath, 'utf8').trim().split('\n').slice(-5).join('\n');
  throw new Error(`sshd on ${ip}:${port} ${h.exited() ? 'exited' : 'not listening'}:\n${tail}`);
}

/**
 * A port nothing listens on now (the kernel's pick, released again) on `ip`: 127.0.0.1, or
 * a loopback alias (fallback mode gives each host its own).
 */
export function freePort(ip = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, ip, () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}
