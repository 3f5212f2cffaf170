"""The one place where untrusted student code runs. Everything outside this package is trusted."""
from .config import SandboxConfig, SandboxLimits
from .server import Child, ChildFailure, ForkServer, SandboxUnavailable

__all__ = ["Child", "ChildFailure", "ForkServer", "SandboxConfig", "SandboxLimits", "SandboxUnavailable"]
