import { writeFileSync } from 'node:fs';
import { createTestHosts, writeHostsYaml } from '../test/e2e/harness/netns-hosts.js';
const n = Number(process.argv[2] ?? 5);
const t = await createTestHosts({ count: n });
writeHostsYaml('/tmp/dev/hosts.yaml', t);
writeFileSync('/tmp/dev/info.json', JSON.stringify(t, null, 1));
console.log('ready', t.hosts.map((h) => h.ip).join(' '));
process.on('SIGTERM', async () => { await t.teardown(); process.exit(0); });
setInterval(() => {}, 1000);
