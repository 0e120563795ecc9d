# bench/tls.ts's workload, the same for both contenders: 96 blocks of 10 MiB made on the
# workers (3 workers: 32 each), then each block's length computed on another worker, so
# ~960 MiB crosses the network between workers; prints BENCH {json} with the seconds.
import json, os, sys, time
from distributed import Client, wait

cfg = json.loads(sys.argv[1])
c = Client(timeout=30)  # address and TLS from the environment (sshcluster env)
c.wait_for_workers(cfg["workers"], timeout=60)
workers = sorted(c.scheduler_info()["workers"])
n, size = cfg["blocks"], cfg["size"]
t0 = time.perf_counter()
blocks = [c.submit(os.urandom, size, pure=False, key="b-%d" % i, workers=[workers[i % len(workers)]]) for i in range(n)]
wait(blocks)
t1 = time.perf_counter()
lens = [c.submit(len, b, key="l-%d" % i, workers=[workers[(i + 1) % len(workers)]], allow_other_workers=False) for i, b in enumerate(blocks)]
total = sum(c.gather(lens))
t2 = time.perf_counter()
print("BENCH " + json.dumps({"make": t1 - t0, "transfer": t2 - t1, "bytes": total, "ok": total == n * size}), flush=True)
c.close()
