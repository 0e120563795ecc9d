import { describe, expect, it } from 'vitest';
import { parseHostFile } from '../../../src/config/load.js';
import type { LoadContext } from '../../../src/config/load.js';
import { HOME, configErrorOf, makeCtx } from '../fixtures/config/ctx.js';

const load = (yaml: string, ctx = makeCtx()) => parseHostFile(yaml, 'hosts.yaml', ctx);

/** makeCtx, but reading `path` fails with `code` as fs.readFileSync would. */
function failingRead(path: string, code: string): LoadContext {
  const ctx = makeCtx();
  return { ...ctx, readFile: (p) => (p === path ? raise(code, p) : ctx.readFile(p)) };
}

function raise(code: string, p: string): never {
  throw Object.assign(new Error(`${code}: failed, open '${p}'`), { code });
}

describe('identity_file written in the host file', () => {
  it('is refused at its line when the file does not exist, before any connection', () => {
    const err = configErrorOf(() => load('connect_options: {identity_file: /tmp/nu-h/nokey}\nhosts: [a, b]\n'));
    expect(err.message).toBe(
      'hosts.yaml:1:34 connect_options.identity_file: identity file /tmp/nu-h/nokey does not exist',
    );
    expect(err.hint).toBe(
      "correct the path (a relative one is from the host file's directory), or remove identity_file to use ssh-agent and ~/.ssh/config IdentityFile",
    );
    expect(err.exitCode).toBe(2);
  });

  it('points at the missing one of a per-host list, resolved like the others', () => {
    const yaml = 'hosts:\n  - a\n  - host: b\n    connect_options:\n      identity_file: [~/.ssh/ok, keys/gone]\n';
    const err = configErrorOf(() => load(yaml, makeCtx({ [`${HOME}/.ssh/ok`]: 'a key' })));
    expect(err.message).toBe(
      'hosts.yaml:5:34 hosts[1].connect_options.identity_file[1]: identity file /srv/proj/keys/gone does not exist',
    );
  });

  it('is refused when it exists but cannot be read', () => {
    const err = configErrorOf(() =>
      load(
        'connect_options: {identity_file: ~/.ssh/root_only}\nhosts: [a, b]\n',
        failingRead(`${HOME}/.ssh/root_only`, 'EACCES'),
      ),
    );
    expect(err.message).toBe(
      `hosts.yaml:1:34 connect_options.identity_file: cannot read identity file ${HOME}/.ssh/root_only: permission denied`,
    );
    expect(err.hint).toContain(`chmod 600 ${HOME}/.ssh/root_only`);
  });

  it('is refused when it names a directory', () => {
    const err = configErrorOf(() =>
      load('connect_options: {identity_file: ~/.ssh}\nhosts: [a, b]\n', failingRead(`${HOME}/.ssh`, 'EISDIR')),
    );
    expect(err.message).toBe(
      `hosts.yaml:1:34 connect_options.identity_file: identity file ${HOME}/.ssh is a directory`,
    );
  });

  it('is only a path to try for a host with an agent or a password: the agent may hold the key (OpenSSH only warns)', () => {
    const withAgent = { ...makeCtx(), env: { SSH_AUTH_SOCK: '/run/agent.sock' } };
    const yaml = 'connect_options: {identity_file: ~/.ssh/team_key}\nhosts: [a, b]\n';
    expect(load(yaml, withAgent).workerHosts[0]!.connect.identityFiles).toEqual([`${HOME}/.ssh/team_key`]);
    expect(
      load('connect_options: {identity_file: ~/.ssh/team_key, password: {env: PW}}\nhosts: [a, b]\n').workerHosts[0]!
        .connect.identityFiles,
    ).toEqual([`${HOME}/.ssh/team_key`]);
    // agent: false on one host: that host has only the key.
    const err = configErrorOf(() =>
      load(
        'connect_options: {identity_file: ~/.ssh/team_key}\nhosts: [a, {host: b, connect_options: {agent: false}}]\n',
        withAgent,
      ),
    );
    expect(err.message).toBe(
      `hosts.yaml:1:34 connect_options.identity_file: identity file ${HOME}/.ssh/team_key does not exist`,
    );
  });

  it("leaves ~/.ssh/config's IdentityFile and the default keys alone: ssh skips those when missing", () => {
    const ctx = makeCtx({ [`${HOME}/.ssh/config`]: 'Host b\n  IdentityFile ~/.ssh/not_there\n' });
    const spec = load('hosts: [a, b]\n', ctx);
    expect(spec.workerHosts[0]!.connect.identityFiles).toEqual([`${HOME}/.ssh/not_there`]);
    expect(spec.schedulerHost.connect.identityFiles).toEqual([
      `${HOME}/.ssh/id_ed25519`,
      `${HOME}/.ssh/id_ecdsa`,
      `${HOME}/.ssh/id_rsa`,
    ]);
  });
});
