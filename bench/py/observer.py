# The outside observer of bench/up.ts: a client that is not part of any contender and
# times, for each alike, from the contender's spawn until the scheduler lists N workers.
#   observer.py HOST PORT N
# Imports distributed first and prints READY; the bench then writes a line to stdin and
# spawns the contender at once. From then: connect to the port every 20 ms until it
# accepts, a Client, then ask the scheduler for its workers (ncores, one small RPC) every
# 20 ms until there are N; print "SEEN <n> <seconds since the go line>" and exit.
import socket, sys, time

host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
from distributed import Client

print("READY", flush=True)
sys.stdin.readline()
t0 = time.perf_counter()
while True:
    try:
        socket.create_connection((host, port), timeout=0.5).close()
        break
    except OSError:
        time.sleep(0.02)
c = Client(f"tcp://{host}:{port}", timeout=60)
while True:
    seen = len(c.ncores())
    if seen >= n:
        break
    time.sleep(0.02)
print(f"SEEN {seen} {time.perf_counter() - t0:.4f}", flush=True)
c.close()
