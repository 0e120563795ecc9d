# bench/adaptive.ts's measuring client, the same for both contenders: runs 60 one-second
# tasks and samples the scheduler's worker count every 0.1 s; prints BENCH {json} lines.
import json, sys, threading, time
cfg = json.loads(sys.argv[1])
from distributed import Client

def emit(event, **kw):
    print("BENCH " + json.dumps({"event": event, **kw}), flush=True)

c = Client(cfg["address"], timeout=30)
n0 = len(c.scheduler_info()["workers"])
emit("connected", workers=n0)
deadline = time.perf_counter() + cfg["timeout"]

samples = []          # (perf_counter when the scheduler's reply arrived, workers listed)
stop = threading.Event()
def sampler():
    while not stop.is_set():
        try:
            n = len(c.scheduler_info()["workers"])
        except Exception:
            n = -1
        samples.append((time.perf_counter(), n))
        stop.wait(0.1)
th = threading.Thread(target=sampler, daemon=True)
th.start()

T0 = time.perf_counter()
futs = c.map(lambda x: (time.sleep(1), x)[1], range(cfg["ntasks"]))
res = c.gather(futs)
T_RES = time.perf_counter()
WALL_RES = time.time()
del futs              # release the results on the workers: nothing holds a worker
emit("results", results=T_RES - T0, wall=WALL_RES, ok=sum(res) == sum(range(cfg["ntasks"])))

zero = None
while zero is None and time.perf_counter() < deadline:
    for t, n in list(samples):
        if t > T_RES and n == 0:
            zero = t
            break
    time.sleep(0.05)
stop.set()
th.join()

def first(pred):
    for t, n in samples:
        if t >= T0 and pred(n):
            return t - T0
    return None
emit("done",
     first=first(lambda n: n >= 1),
     target=first(lambda n: n >= cfg["max"]),
     results=T_RES - T0,
     zero=None if zero is None else zero - T_RES,
     peak=max((n for t, n in samples if t >= T0), default=0),
     polls=len(samples),
     errors=sum(1 for t, n in samples if n < 0))
c.close()
