"""A folder of wheels repacked from this virtual environment, so that a fresh environment can be
installed offline (the Gradescope emulation) without downloading anything.

Each installed distribution (the kit's own development install excepted) becomes a wheel of the files
its RECORD lists inside site-packages, with a fresh RECORD. torch is taken from the wheel folders that
pip is configured with (`find-links`) when a CPU wheel of the installed version is there, as it is on
this project's machines; otherwise it is repacked too.
"""
from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

SKIP = {"attention-kit"}


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def pip_find_links() -> list[Path]:
    """Folders pip takes wheels from, as configured on this machine."""
    text = os.environ.get("PIP_FIND_LINKS", "")
    if not text:
        probe = subprocess.run([sys.executable, "-m", "pip", "config", "get", "global.find-links"],
                               capture_output=True, text=True)
        text = probe.stdout.strip() if probe.returncode == 0 else ""
    return [Path(p) for p in text.split() if Path(p).is_dir()]


def local_wheel(name: str, version: str) -> Path | None:
    base = version.split("+")[0]
    for folder in pip_find_links():
        for wheel in folder.glob(f"{normalized(name)}-{base}*.whl"):
            return wheel
    return None


def repack(dist: importlib.metadata.Distribution, site: Path, target: Path) -> Path:
    name, version = normalized(dist.metadata["Name"]), dist.version
    info = f"{name}-{version}.dist-info"
    wheel = target / f"{name}-{version}-py3-none-any.whl"
    records, written = [], set()
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_STORED) as archive:
        for file in dist.files or []:
            relative = file.as_posix()
            if relative.startswith("..") or "__pycache__" in relative or relative.endswith(".pyc"):
                continue
            source = site / relative
            parts = relative.split("/")
            if parts[0].endswith(".dist-info"):  # its own metadata (vendored packages keep theirs as they are)
                if parts[1:] in (["RECORD"], ["INSTALLER"], ["REQUESTED"], ["direct_url.json"], ["WHEEL"]):
                    continue
                relative = "/".join([info, *parts[1:]])
            if relative in written:
                continue
            written.add(relative)
            if not source.is_file():
                continue
            data = source.read_bytes()
            archive.writestr(relative, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            records.append(f"{relative},sha256={digest},{len(data)}")
        wheel_text = "Wheel-Version: 1.0\nGenerator: attention-kit tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        archive.writestr(f"{info}/WHEEL", wheel_text)
        records += [f"{info}/WHEEL,,", f"{info}/RECORD,,"]
        archive.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
    return wheel


def build(target: Path) -> list[Path]:
    """Wheels of every distribution installed beside torch; returns the folders to install from."""
    site = next(Path(p) for p in sys.path if p.endswith("site-packages") and Path(p, "torch").is_dir())
    target.mkdir(parents=True, exist_ok=True)
    folders = [target]
    for dist in importlib.metadata.distributions(path=[str(site)]):
        name = dist.metadata["Name"]
        if name is None or name.lower() in SKIP:
            continue
        if name.lower() == "torch":
            found = local_wheel("torch", dist.version)
            if found is not None:
                folders.append(found.parent)
                continue
        repack(dist, site, target)
    return folders
