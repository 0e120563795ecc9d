"""Cluster(name, hosts=PATH) when none of that name runs: `sshcluster up --detach`, its
start-up lines shown as they come (in a notebook, in the cell)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from ._errors import SSHClusterError


def cli_path(cli: str | None = None, env: dict | None = None) -> str:
    """cli=, else $SSHCLUSTER_CLI, else `sshcluster` on PATH, else this checkout's bin/sshcluster."""
    env = os.environ if env is None else env
    if cli or env.get("SSHCLUSTER_CLI"):
        return cli or env["SSHCLUSTER_CLI"]
    found = shutil.which("sshcluster")
    if found:
        return found
    checkout = Path(__file__).resolve().parents[2] / "bin" / "sshcluster"
    if checkout.exists():
        return str(checkout)
    raise SSHClusterError("cannot find the sshcluster CLI to start the cluster",
                          hint="put it on PATH, set SSHCLUSTER_CLI, or pass cli= to Cluster")


def host_file_name(hosts: str) -> str:
    """The cluster name the CLI gives a host file: its `name:`, else its base name."""
    import re

    import yaml

    if is_local(hosts):
        return "local"
    try:
        doc = yaml.safe_load(Path(hosts).read_text())
    except OSError as e:
        raise SSHClusterError(f"cannot read the host file {hosts}: {e.strerror}") from e
    except yaml.YAMLError as e:
        raise _yaml_error(hosts, e) from None
    if isinstance(doc, dict) and isinstance(doc.get("name"), str) and doc["name"]:
        return doc["name"]
    return re.sub(r"[^A-Za-z0-9._-]", "-", Path(hosts).stem)


def _yaml_error(hosts: str, e) -> SSHClusterError:
    """As the CLI says a file that is no YAML: FILE:LINE:COLUMN, what, and where it began."""
    mark = getattr(e, "problem_mark", None)
    where = f"{hosts}:{mark.line + 1}:{mark.column + 1}" if mark else str(hosts)
    what = getattr(e, "problem", None) or str(e)
    ctx, cmark = getattr(e, "context", None), getattr(e, "context_mark", None)
    began = f" ({ctx} at line {cmark.line + 1}, column {cmark.column + 1})" if ctx and cmark else ""
    return SSHClusterError(f"{where}: invalid YAML: {what}{began}",
                           hint=f"nothing was started; fix the file (sshcluster check {hosts} checks it without starting anything)")


def up_detached(hosts: str, name: str, cli: str | None = None, out=None) -> None:
    out = out or sys.stdout
    argv = [cli_path(cli), "up", "--detach", "--name", name]
    if not is_local(hosts):
        argv.insert(3, str(hosts))
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL)
    tail: list[str] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        out.write(line)
        tail = (tail + [line.rstrip()])[-10:]
    code = proc.wait()
    if code != 0:
        # 2: the file or the arguments were refused before anything started (no controller, no log).
        hint = ("nothing was started: fix what the lines above say (sshcluster check FILE checks a host file)"
                if code == 2 else "its controller log is controller.log in the cluster's state dir")
        raise SSHClusterError(f"sshcluster up --detach exited with code {code}:\n" + "\n".join(tail), hint=hint)


def is_local(hosts: str) -> bool:
    """hosts="local": the local cluster (no host file), unless a file of that name is there."""
    return str(hosts) == "local" and not Path(hosts).exists()
