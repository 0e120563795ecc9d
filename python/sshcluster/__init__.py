"""Attach to clusters started by the sshcluster CLI from Python and Jupyter."""
from ._errors import SSHClusterError
from ._security import install_loader, security_loader
from ._state import ClusterInfo, list_clusters
from ._version import __version__
from .cluster import Cluster

install_loader()

__all__ = ["Cluster", "ClusterInfo", "SSHClusterError", "list_clusters", "security_loader", "__version__"]
