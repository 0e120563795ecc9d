"""TLS for a client of one of this user's clusters, from the cluster's own files.

A tcp cluster gets an explicit Security(require_encryption=False), so TLS settings left
in the environment by `eval "$(sshcluster env)"` for another cluster do not apply to it.
"""
from __future__ import annotations

import warnings
from pathlib import Path

from distributed.security import Security

from ._errors import SSHClusterError


def security_for(name: str, cluster_dir: Path, address: str) -> Security:
    if not address.startswith("tls://"):
        return Security(require_encryption=False)
    tls = cluster_dir / "tls"
    files = {"tls_ca_file": tls / "ca.pem", "tls_client_cert": tls / "client.pem", "tls_client_key": tls / "client-key.pem"}
    missing = [str(p) for p in files.values() if not p.exists()]
    if missing:
        raise SSHClusterError(f'cluster "{name}" talks TLS but its client certificate is missing: {", ".join(missing)}',
                              hint=f"it is made by sshcluster up; restart the cluster (sshcluster down --name {name}, then up)")
    return Security(require_encryption=True, **{k: str(v) for k, v in files.items()})


def security_loader(info: dict) -> Security | None:
    """For Dask's `distributed.client.security-loader` setting ("sshcluster.security_loader").

    Dask calls it with {"address": ...} when a Client gets an address and no security=;
    None means "Dask's configured default" (an address that is none of this user's clusters).
    """
    from ._state import list_clusters

    address = info.get("address") if isinstance(info, dict) else None
    if not address:
        return None
    for c in list_clusters(probe=False):
        if c.scheduler_address == address and c.dir is not None:
            return security_for(c.name, c.dir, address)
    return None


def imported_loader(info: dict) -> Security | None:
    """security_loader as `import sshcluster` configures it: where this user's cluster
    state cannot be read (a state dir refused), a warning and Dask's default, so that a
    Client of any other address in the process is not stopped by it."""
    try:
        return security_loader(info)
    except SSHClusterError as e:
        warnings.warn(f"sshcluster: no TLS files for {info.get('address')}: {e}", stacklevel=2)
        return None


def install_loader() -> bool:
    """Make a plain Client("tls://…") of one of this user's clusters find its files: set
    Dask's distributed.client.security-loader to imported_loader unless one is set
    (a user's own choice stays). True when it was set."""
    import dask

    if dask.config.get("distributed.client.security-loader", None):
        return False
    dask.config.set({"distributed.client.security-loader": "sshcluster._security.imported_loader"})
    return True
