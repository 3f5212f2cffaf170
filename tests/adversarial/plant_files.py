from ._snippets import SHA, solution_text

ASSIGNMENT = SHA
TAG = "plant"
ATTACK = ("plants files, folders, fifos and links for whoever runs next (a later student, or its own next "
          "process) in /tmp, /var/tmp, /dev/shm, HOME, TMPDIR, its working folder and the folders beside it; "
          "its attention() kills its own process, so the file is loaded again in a fresh one that looks for "
          "the plants")
_CRASH = '''

def attention(Q, K, V, mask=None):
    import os
    os._exit(0)  # a fresh process loads the file again for the next test
'''
CODE = solution_text(ASSIGNMENT) + '''
import glob
import os
import tempfile

_places = ["/tmp", "/var/tmp", "/dev/shm", "/run/lock", os.path.expanduser("~"), tempfile.gettempdir(), os.getcwd()]
_seen = []
for _place in _places + [os.path.dirname(os.getcwd())]:
    _seen += glob.glob(os.path.join(_place, "__MARK__*")) + glob.glob(os.path.join(_place, "*", "__MARK__*"))
if _seen:
    print("ATTNKIT-LEAK found what an earlier process planted:", sorted(set(_seen))[:5])
_made = 0
for _place in _places:
    _stem = os.path.join(_place, "__MARK__-%d-" % os.getpid())
    for _make in (lambda p: open(p, "w").close(), os.mkdir, os.mkfifo, lambda p: os.symlink("/etc/passwd", p)):
        try:
            _make(_stem + str(_made))
            _made += 1
        except OSError:
            pass
print("planted", _made, "entries; found", len(_seen))
''' + _CRASH
TWIN = solution_text(ASSIGNMENT) + _CRASH
EVIDENCE = "planted"
