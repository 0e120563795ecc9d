# bench/adaptive.ts's second contender: Dask's own Adaptive on a LocalCluster, in a process
# of its own (like sshcluster's controller), until stdin closes.
import json, sys, time
from distributed import LocalCluster

def main():
    cfg = json.loads(sys.argv[1])
    cluster = LocalCluster(n_workers=0, threads_per_worker=cfg["nthreads"], processes=True,
                           dashboard_address=None, host="127.0.0.1", scheduler_port=0)
    cluster.adapt(minimum=0, maximum=cfg["max"], interval="1s", wait_count=3, target_duration="5s")
    print("BENCH " + json.dumps({"event": "up", "address": cluster.scheduler_address}), flush=True)
    sys.stdin.read()
    cluster.close()
    print("BENCH " + json.dumps({"event": "closed"}), flush=True)

if __name__ == "__main__":  # the workers are multiprocessing "spawn" children: they import this file
    main()
