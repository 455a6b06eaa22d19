"""Docker backend settings now live in :mod:`sandbox.config` (configuration is read in one place)."""

from sandbox.config import DockerSettings

__all__ = ["DockerSettings"]
