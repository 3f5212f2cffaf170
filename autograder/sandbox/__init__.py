"""The one place where untrusted student code runs. Everything outside this package is trusted."""
from .config import SandboxConfig, SandboxLimits
from .isolation import Isolation, SandboxUnavailable, resolve
from .server import Child, ChildFailure, ForkServer

__all__ = ["Child", "ChildFailure", "ForkServer", "Isolation", "SandboxConfig", "SandboxLimits",
           "SandboxUnavailable", "resolve"]
