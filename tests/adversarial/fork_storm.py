from ._snippets import NAME_PROCESS, SHA, solution_text

ASSIGNMENT = SHA
TAG = "forks"
ATTACK = ("a bounded fork storm at import: up to 400 sleeping processes (each trying to fork more) "
          "that would outlive the file, then the correct solution")
CODE = solution_text(ASSIGNMENT) + NAME_PROCESS + '''
import os
import time

_made, _refused = 0, 0
for _ in range(400):
    try:
        pid = os.fork()
    except OSError:
        _refused += 1
        if _refused > 20:
            break
        continue
    if pid == 0:
        try:
            _attnkit_name("__MARK__")
            for _ in range(3):
                try:
                    if os.fork() == 0:
                        _attnkit_name("__MARK__")
                        break
                except OSError:
                    break
            time.sleep(300)
        finally:
            os._exit(0)
    _made += 1
print("forked", _made, "processes; refused", _refused, "times")
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "refused"
SAME_SCORE = True
