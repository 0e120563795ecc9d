import json
import re

from conftest import REPO

import sshcluster
from sshcluster._version import CONTROL_PROTOCOL


def test_version_is_the_clis():
    assert sshcluster.__version__ == json.loads((REPO / "package.json").read_text())["version"]


def test_protocol_major_is_the_controllers():
    m = re.search(r"CONTROL_PROTOCOL = (\d+);", (REPO / "src" / "version.ts").read_text())
    assert m and int(m[1]) == CONTROL_PROTOCOL
