# sshcluster-probe: the Python part of `sshcluster check` on one host. Prints the
# interpreter's version, those of dask and distributed and its ssl's TLS support, then reads "HOST PORT" from
# stdin (the scheduler host's listener, once it is up) and tries to connect there.
# Every output line starts with "@sshc " so setup noise is ignored. Python 3.7
# compatible, stdlib only.
import json, platform, socket, sys

r = {"version": platform.python_version()}
for m in ("dask", "distributed"):
    try:
        r[m] = str(__import__(m).__version__)
    except BaseException as e:
        r[m + "_error"] = "%s: %s" % (type(e).__name__, e)
try:
    import ssl
    r["ssl"] = {"openssl": ssl.OPENSSL_VERSION, "tls12": bool(getattr(ssl, "HAS_TLSv1_2", hasattr(ssl, "PROTOCOL_TLSv1_2"))), "tls13": bool(getattr(ssl, "HAS_TLSv1_3", False))}
except BaseException as e:
    r["ssl_error"] = "%s: %s" % (type(e).__name__, e)
print("@sshc py " + json.dumps(r), flush=True)
t = sys.stdin.readline().split()
if len(t) == 2:
    try:
        socket.create_connection((t[0], int(t[1])), timeout=5).close()
        print("@sshc reach " + json.dumps({"ok": True}))
    except OSError as e:
        print("@sshc reach " + json.dumps({"ok": False, "error": str(e)}))
