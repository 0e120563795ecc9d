// Makes a cluster's certificates in a process of its own (cert-maker.ts): @peculiar/x509 and its dependencies add ~20 MB to a process that loads
// them, and a controller that lives for days should not keep them for a job done once.
// Options as JSON on stdin, the certificates (PEM) as JSON on stdout: never argv or env.
import { makeClusterCerts, type MakeCertsOptions } from '../tls/cert-authority.js';

let input = '';
for await (const chunk of process.stdin) input += String(chunk);
const o = JSON.parse(input) as Omit<MakeCertsOptions, 'now'> & { now: string };
process.stdout.write(JSON.stringify(await makeClusterCerts({ ...o, now: new Date(o.now) })));
