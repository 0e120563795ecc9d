"""One local cluster (`sshcluster up --detach`, no host file) shared by the tests, in a
state dir of its own; torn down with `sshcluster down` at the end."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CLI = os.environ.get("SSHCLUSTER_CLI") or str(REPO / "bin" / "sshcluster")
# The package from this checkout, whatever is installed.
sys.path.insert(0, str(REPO / "python"))


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([CLI, *args], capture_output=True, text=True, check=check, stdin=subprocess.DEVNULL, timeout=300)


@pytest.fixture(scope="session", autouse=True)
def state_home():
    """A private XDG_STATE_HOME for every cluster these tests start (0700, as the CLI wants)."""
    d = tempfile.mkdtemp(prefix="sshcluster-pytest-")
    os.chmod(d, 0o700)
    old = os.environ.get("XDG_STATE_HOME")
    os.environ["XDG_STATE_HOME"] = d
    os.environ["SSHCLUSTER_CLI"] = CLI
    os.environ.pop("SSHCLUSTER_NAME", None)
    yield Path(d)
    for name in os.listdir(Path(d) / "sshcluster") if (Path(d) / "sshcluster").exists() else []:
        if (Path(d) / "sshcluster" / name / "state.json").exists():
            cli("down", "--name", name, check=False)
    if old is None:
        os.environ.pop("XDG_STATE_HOME", None)
    else:
        os.environ["XDG_STATE_HOME"] = old


@pytest.fixture(scope="session")
def shared(state_home) -> str:
    """The shared cluster's name: a local cluster of 2 workers."""
    r = cli("up", "--detach", "--name", "pytest-shared", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    yield "pytest-shared"
    cli("down", "--name", "pytest-shared", check=False)
