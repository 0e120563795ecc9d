// connect_options.command_timeout: how long a control command on a host (a scan, a kill,
// the cluster files' removal) may take, for hosts slow to answer when many are busy.
import { describe, expect, it } from 'vitest';
import { parseHostFile } from '../../../src/config/load.js';
import { makeCtx } from '../fixtures/config/ctx.js';

describe('connect_options.command_timeout', () => {
  it('is unset unless written (the runner then takes 15 s), for every host or one', () => {
    const plain = parseHostFile('hosts: [node0, node1]\n', 'lab.yaml', makeCtx());
    expect(plain.workerHosts[0]!.connect.commandTimeoutMs).toBeUndefined();
    const spec = parseHostFile(
      'connect_options: {command_timeout: 2m}\nhosts: [node0, {host: node1, connect_options: {command_timeout: 90}}, node2]\n',
      'lab.yaml',
      makeCtx(),
    );
    expect(spec.schedulerHost.connect.commandTimeoutMs).toBe(120_000);
    expect(spec.workerHosts.map((h) => h.connect.commandTimeoutMs)).toEqual([90_000, 120_000]);
  });

  it('is refused at its line when it is not a duration above zero', () => {
    expect(() => parseHostFile('connect_options: {command_timeout: 0}\nhosts: [a]\n', 'hosts.yaml', makeCtx())).toThrow(
      'hosts.yaml:1:36 connect_options.command_timeout: expected a duration greater than zero',
    );
  });
});
