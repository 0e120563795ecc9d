"""Cluster(hosts=FILE): a host file that is no YAML is said as the CLI says it, nothing started."""
import pytest

import sshcluster
from sshcluster import SSHClusterError


def test_a_host_file_with_a_yaml_error_is_refused_with_its_line_and_column(tmp_path):
    f = tmp_path / "lab.yaml"
    f.write_text("name: lab\nhosts:\n  - node0\n  - [node1\nworker_options: {nthreads: 2}\n")
    # Was PyYAML's own ParserError ("while parsing a flow sequence … in '<unicode string>'").
    with pytest.raises(SSHClusterError, match=rf"^{f}:5:15: invalid YAML: expected ',' or ']', but got ':' \(while parsing a flow sequence at line 4, column 5\)") as e:
        sshcluster.Cluster(hosts=str(f))
    assert f"sshcluster check {f}" in e.value.hint
    assert not [c for c in sshcluster.list_clusters() if c.name == "lab"]


def test_a_refused_host_file_says_nothing_started_not_where_a_controller_log_is(tmp_path, capsys):
    f = tmp_path / "lab.yaml"
    f.write_text("name: lab\nhosts: [node0, node1]\nworker_option: {nthreads: 2}\n")
    with pytest.raises(SSHClusterError, match=r"exited with code 2:\n.*worker_option: unknown key") as e:
        sshcluster.Cluster(hosts=str(f))
    # Was "its controller log is controller.log in the cluster's state dir": none was started.
    assert "controller.log" not in e.value.hint
    assert "nothing was started" in e.value.hint
    assert "did you mean \"worker_options\"" in capsys.readouterr().out  # the CLI's lines, shown as they came
