"""docs/notebook-example.ipynb, run headless (nbclient) against the shared cluster:
attaches, computes, scales, shows the logs."""
import os

import nbformat
import pytest
from conftest import REPO

nbclient = pytest.importorskip("nbclient")


def test_example_notebook_runs(shared, monkeypatch):
    monkeypatch.setenv("SSHCLUSTER_NAME", shared)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO / "python"), os.environ.get("PYTHONPATH", "")]))
    nb = nbformat.read(REPO / "docs" / "notebook-example.ipynb", as_version=4)
    nbclient.NotebookClient(nb, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(REPO)}}).execute()
    outputs = {i: "".join(str(o.get("data", {}).get("text/plain", "")) + o.get("text", "") for o in c.get("outputs", []))
               for i, c in enumerate(nb.cells) if c.cell_type == "code"}
    assert f"'{shared}', 'running'" in outputs[1]
    assert "4950" in outputs[3]
    assert "'desired': 1" in outputs[4]
    assert "'scheduler'" in outputs[5] and "'Cluster'" in outputs[5]
