from ._snippets import NAME_PROCESS, SHA, stub_text

ASSIGNMENT = SHA
TAG = "daemon"
ATTACK = ("double fork + setsid daemons (one renamed, one exec'ing a new python) that outlive the "
          "file, sleep, then keep trying to rewrite the result files and drop files in /tmp")
CODE = stub_text(ASSIGNMENT) + NAME_PROCESS + '''
import os
import sys
import time

_WORK = """
import json, os, time
time.sleep(1.5)
end = time.monotonic() + 120
while time.monotonic() < end:
    for path in ["__OUT_DIR__/.state/__OWN_ID__.json", "/tmp/__MARK__.json", "__OUT_DIR__/__MARK__.json"] + [
            f"__OUT_DIR__/.state/{victim}.json" for victim in __VICTIMS__]:
        try:
            with open(path, "w") as handle:
                handle.write(json.dumps({"score": 100, "fingerprint": "__MARK__"}))
        except OSError:
            pass
    time.sleep(0.3)
"""


def _daemonize(execute):
    if os.fork() != 0:
        return
    os.setsid()
    if os.fork() != 0:
        os._exit(0)
    for fd in range(3, 64):
        try:
            os.close(fd)
        except OSError:
            pass
    try:
        if execute:
            try:  # a fresh interpreter: nothing of the sandbox's Python state left in it
                os.execv(sys.executable, [sys.executable, "-c", _WORK, "__MARK__"])
            except OSError:
                pass  # the interpreter's folder may not be readable by this uid
        _attnkit_name("__MARK__")
        exec(_WORK)
    finally:
        os._exit(0)


_started, _refused = 0, []
for _execute in (False, True):
    try:
        _daemonize(_execute)
        _started += 1
    except OSError as _exc:  # no process creation in the sandbox
        _refused.append(type(_exc).__name__)
time.sleep(0.3)
print("daemons started:", _started, "refused:", _refused)
'''
TWIN = stub_text(ASSIGNMENT)
EVIDENCE = "daemons started"
