# sshcluster-listener HOST PORT DASHBOARD_HOST DASHBOARD_PORT LIFETIME_S: the scheduler
# host's side of `sshcluster check`. Binds the scheduler port (the port test, and the
# target of the workers' reachability test) and tries the dashboard port; prints
# "@sshc ports {pid, scheduler, dashboard}" with the bind errors, then accepts until
# its stdin closes, it is killed by PID, or LIFETIME_S runs out. Python 3.7 compatible.
import json, os, socket, sys, threading

host, port, dhost, dport, life = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), float(sys.argv[5])


def bind(h, p, listen):
    s = socket.socket(socket.AF_INET6 if ":" in h else socket.AF_INET)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind((h, p))
        if listen:
            s.listen(128)
            return s, None
    except OSError as e:
        s.close()
        return None, e.strerror or str(e)
    s.close()
    return None, None


srv, err = bind(host, port, True)
_, derr = bind(dhost, dport, False)
print("@sshc ports " + json.dumps({"pid": os.getpid(), "scheduler": err, "dashboard": derr}), flush=True)
if srv is None:
    sys.exit(0)


def stdin_closed():
    sys.stdin.read()
    os._exit(0)


threading.Thread(target=stdin_closed, daemon=True).start()
threading.Timer(life, lambda: os._exit(0)).start()
while True:
    c, _ = srv.accept()
    # Let the worker close first, so TIME_WAIT stays on its side, not on the scheduler port.
    c.settimeout(1)
    try:
        c.recv(1)
    except OSError:
        pass
    c.close()
