// `check` and Worker Resources: what each host declares next to what it has. A host
// that declares GPU without a GPU gets GPU tasks it cannot run; one with GPUs that
// declares none never gets them. Both are warnings: resources are the user's labels
// (Dask does not know what a GPU is), so check says what it saw and does not block.
import type { ProbeResult } from './check-probe.js';

type Add = (severity: 'error' | 'warning', message: string, hint: string) => void;

/** `GPU=2 MEMORY=1e11`, as `dask worker --resources` spells it; "-" for none. */
export function resourcesCell(resources: Readonly<Record<string, number>> | undefined): string {
  const parts = Object.entries(resources ?? {}).map(
    ([k, v]) => `${k}=${v >= 1e6 ? v.toExponential().replace('e+', 'e') : v}`,
  );
  return parts.length > 0 ? parts.join(' ') : '-';
}

/** The declared GPU amount: Dask's resource names are free-form; "GPU" is the convention. */
function declaredGpus(resources: Readonly<Record<string, number>>): { name: string; amount: number } | undefined {
  const e = Object.entries(resources).find(([k, v]) => /^gpus?$/i.test(k) && v > 0);
  return e ? { name: e[0], amount: e[1] } : undefined;
}

export function resourceProblems(
  resources: Readonly<Record<string, number>> | undefined,
  probe: ProbeResult,
  add: Add,
): void {
  if (resources === undefined) return; // runs no workers
  const declared = declaredGpus(resources);
  const found = probe.gpus.length;
  if (declared && found === 0) {
    add(
      'warning',
      `declares ${declared.name}=${declared.amount} but \`nvidia-smi -L\` lists no GPU`,
      `check the GPU driver on the host (\`nvidia-smi -L\`), or drop ${declared.name} from its worker_options.resources: Dask sends ${declared.name} tasks there`,
    );
  } else if (declared && declared.amount > found) {
    add(
      'warning',
      `declares ${declared.name}=${declared.amount} per worker but \`nvidia-smi -L\` lists ${found}`,
      `set worker_options.resources.${declared.name} to at most ${found}: every worker there declares it`,
    );
  } else if (!declared && found > 0) {
    add(
      'warning',
      `\`nvidia-smi -L\` lists ${found} GPU${found === 1 ? '' : 's'} but the host declares no GPU resource`,
      `add worker_options: {resources: {GPU: ${found}}} to it so tasks submitted with resources={"GPU": 1} can run there`,
    );
  }
}
