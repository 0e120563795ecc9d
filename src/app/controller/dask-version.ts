// distributed.__version__ as the scheduler host's python reports it (the adaptive
// target's meaning changed between versions: adaptive/target.ts).
import type { HostRunner } from '../../cluster/ports.js';
import type { HostSpec } from '../../config/spec.js';
import { pythonWord } from '../../dask/remote-command.js';

export async function distributedVersion(host: HostSpec, runner: HostRunner | undefined): Promise<string> {
  if (!runner) throw new Error('the scheduler host is not connected');
  const py = pythonWord(host.remotePython);
  const r = await runner.run(
    [...py.lines, `${py.word} -c 'import distributed; print(distributed.__version__)'`].join('\n'),
  );
  const v = r.stdout.trim();
  if (r.code !== 0 || !v) throw new Error(`could not read the distributed version on ${host.name}: ${r.stderr.trim()}`);
  return v;
}
