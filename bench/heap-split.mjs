// Splits a heap snapshot of bench/core.ts (CORE_HEAP_SNAPSHOT=FILE) into what the
// controller keeps and what the bench's fakes (FakeProcess, FakeHost, FakeScheduler:
// test/unit/cluster/fakes.ts) keep, so that a leaner fake cannot pass for a leaner
// controller:
//   controller  reachable from the roots with every edge out of a fake cut (each
//               FakeProcess object itself counts here: it is the RunningProcess the
//               controller holds, which a real runner has too; its size is printed apart)
//   listeners   reachable only through a fake's `lines`, `exited` and `pid`: the
//               controller's line listeners, its reactions to the exit and PID promises,
//               and those promises (a real runner holds the same)
//   fakes       the rest: the fakes' own records (remote PIDs, started lists, process
//               specs, the simulated scheduler's list and metrics)
//
//   CORE_HEAP_SNAPSHOT=/tmp/core.heapsnapshot node --expose-gc /tmp/core.mjs --hosts 10000 --waves 1
//   node --max-old-space-size=4000 bench/heap-split.mjs /tmp/core.heapsnapshot
//
// The figures include the process's own heap (code, built-ins: ~8 MB); per worker, take
// the difference of two runs (e.g. 10,000 and 1,000 hosts) over the difference in workers.
import { readFileSync } from 'node:fs';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node bench/heap-split.mjs FILE.heapsnapshot\n');
  process.exit(2);
}
const snap = JSON.parse(readFileSync(file, 'utf8'));
const meta = snap.snapshot.meta;
const NF = meta.node_fields.length;
const EF = meta.edge_fields.length;
const nodeTypes = meta.node_types[0];
const edgeTypes = meta.edge_types[0];
const [iType, iName, iSelf, iEdges] = ['type', 'name', 'self_size', 'edge_count'].map((f) =>
  meta.node_fields.indexOf(f),
);
const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f));
const { nodes, edges, strings } = snap;
const count = nodes.length / NF;
const firstEdge = new Uint32Array(count + 1);
for (let i = 0, e = 0; i < count; i++) {
  firstEdge[i] = e;
  e += nodes[i * NF + iEdges] * EF;
}
firstEdge[count] = edges.length;

const FAKES = new Set(['FakeProcess', 'FakeHost', 'FakeScheduler']);
const isFake = (i) => nodeTypes[nodes[i * NF + iType]] === 'object' && FAKES.has(strings[nodes[i * NF + iName]]);

/** Bytes reachable from the roots, following out of a fake only the edges named in `through` (all: null). */
function reachable(through) {
  const seen = new Uint8Array(count);
  const stack = [0];
  seen[0] = 1;
  let bytes = 0;
  while (stack.length) {
    const i = stack.pop();
    bytes += nodes[i * NF + iSelf];
    const fake = isFake(i);
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += EF) {
      if (edgeTypes[edges[e + eType]] === 'weak') continue;
      if (fake && through && !through.has(strings[edges[e + eName]])) continue;
      const to = edges[e + eTo] / NF;
      if (seen[to]) continue;
      seen[to] = 1;
      stack.push(to);
    }
  }
  return bytes;
}

let fakeProcesses = 0;
let fakeProcessBytes = 0;
for (let i = 0; i < count; i++)
  if (isFake(i) && strings[nodes[i * NF + iName]] === 'FakeProcess') {
    fakeProcesses++;
    fakeProcessBytes += nodes[i * NF + iSelf];
  }
const all = reachable(null);
const controller = reachable(new Set());
const withListeners = reachable(new Set(['lines', 'exited', 'pid']));
const mib = (b) => `${(b / 2 ** 20).toFixed(1)} MiB`;
console.log(
  `heap ${mib(all)}: controller ${mib(controller)} (of it ${fakeProcesses} FakeProcess objects, ${mib(fakeProcessBytes)}), ` +
    `its listeners held by the fakes ${mib(withListeners - controller)}, fakes ${mib(all - withListeners)}`,
);
