"""The docker backend: warm pools of hardened containers (runc or gVisor), one executor each.

See docs/docker.md. ``DockerBackend(config)`` implements sandbox.backends.base.Backend.
"""

from .backend import DockerBackend

__all__ = ["DockerBackend"]
