"""Where matplotlib keeps its configuration and font cache during a run, so that nothing is left behind.

matplotlib uses $MPLCONFIGDIR, else ~/.config/matplotlib and ~/.cache/matplotlib; where those cannot be written
(a home that is not writable, a service account) it makes a `matplotlib-*` folder in TMPDIR and removes it only
in the interpreter's teardown, which a finished grading run skips (process_exit.py). So, there only, the kit
points MPLCONFIGDIR at a folder of its own and removes it when the process ends, whichever way.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from ..process_exit import on_exit


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK)


def private_matplotlib_home() -> None:
    """Call before matplotlib is imported; does nothing where matplotlib's own folders can be written."""
    if os.environ.get("MPLCONFIGDIR"):
        return
    os.environ.pop("MPLCONFIGDIR", None)  # set but empty: matplotlib would ignore it as well
    try:
        home = Path.home()
    except RuntimeError:  # no HOME and no account: matplotlib falls back to TMPDIR too
        home = None
    if home is not None:
        config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "matplotlib"
        cache = Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache") / "matplotlib"
        if _writable(config) and _writable(cache):
            return
    folder = tempfile.mkdtemp(prefix="attnkit-matplotlib-")
    os.environ["MPLCONFIGDIR"] = folder
    on_exit(lambda: shutil.rmtree(folder, ignore_errors=True))
