"""The one place where untrusted student code runs. Everything outside this package is trusted."""
from .config import SandboxConfig, SandboxLimits
from .isolation import Isolation, SandboxUnavailable, resolve

__all__ = ["Child", "ChildFailure", "ForkServer", "Isolation", "SandboxConfig", "SandboxLimits",
           "SandboxUnavailable", "resolve"]


def __getattr__(name: str):
    # The fork server's side imports torch (to decode tensors); a process that only picks the isolation
    # (the grading coordinator, the Gradescope entry point) must not pay for that.
    if name in ("Child", "ChildFailure", "ForkServer"):
        from . import server

        return getattr(server, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
