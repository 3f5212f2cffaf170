#!/usr/bin/env bash
# Gradescope runs this once, as root, in /autograder/source (where the zip was unpacked) when it
# builds the autograder image. It installs:
#   - uv, then a CPython of the version the kit pins (whatever the base image's python3 is),
#     world-readable, since student code runs under another uid and must be able to load Python;
#   - torch's CPU build from PyTorch's CPU wheel index (PyPI's Linux torch is the multi-GB CUDA build),
#     then the pinned requirements, into /autograder/venv (the kit itself is NOT installed: it runs
#     from /autograder/source, which student code cannot read);
#   - compiled to bytecode, the packages and the kit: every submission runs in a fresh container of this
#     image, where bytecode Python writes at run time is lost, so anything not compiled here (pytest,
#     hypothesis, most of torch, the kit) would be compiled again before every submission;
#   - the quiz files checked in full once, stamped so that no submission checks them again;
# and finally removes read access to the kit (reference solutions, hidden tests, quiz keys) for
# anyone but root.
#
# Offline builds, and the kit's own test of this script, set instead of the network:
#   ATTNKIT_UV=/path/to/uv          a uv binary to use
#   ATTNKIT_PYTHON=/path/to/python  the interpreter for the virtual environment (Python 3.11.5 or later:
#                                   checked first, since the pinned dependencies need it)
#   ATTNKIT_FIND_LINKS=dir[:dir]    folders of wheels (torch's CPU wheel among them); no index is used
#   AUTOGRADER_ROOT=/folder         instead of /autograder
set -euo pipefail
SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="${AUTOGRADER_ROOT:-/autograder}"
VENV="$ROOT/venv"
PYTHON_VERSION=3.11
PYTHON_MIN=3.11.5   # the oldest Python every pinned requirement installs on
UV_VERSION=0.13.8
TORCH_INDEX=https://download.pytorch.org/whl/cpu
TORCH_PIN="$(grep -E '^torch==' "$SOURCE/requirements.txt")"
export UV_PYTHON_INSTALL_DIR=/opt/attnkit-python UV_NO_CONFIG=1 UV_COMPILE_BYTECODE=1

offline() { [ -n "${ATTNKIT_FIND_LINKS:-}" ]; }

# A given interpreter is checked before anything is installed: too old a Python otherwise ends in a resolver
# error about some dependency that does not name the Python as the cause.
if [ -n "${ATTNKIT_PYTHON:-}" ]; then
    found="$("$ATTNKIT_PYTHON" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2> /dev/null || true)"
    if [ -z "$found" ] || ! printf '%s\n%s\n' "$PYTHON_MIN" "$found" | sort -V -C; then
        echo "setup.sh: ATTNKIT_PYTHON=$ATTNKIT_PYTHON is Python ${found:-(not runnable)}; the kit's pinned requirements need Python $PYTHON_MIN or later." >&2
        exit 1
    fi
fi

if [ -n "${ATTNKIT_UV:-}" ]; then
    UV="$ATTNKIT_UV"
elif command -v uv > /dev/null; then
    UV="$(command -v uv)"
else
    apt-get update -qq
    apt-get install -y -qq curl ca-certificates > /dev/null
    curl -LsSf "https://astral.sh/uv/$UV_VERSION/install.sh" | env UV_INSTALL_DIR=/usr/local/bin INSTALLER_NO_MODIFY_PATH=1 sh
    UV=/usr/local/bin/uv
fi
if [ -z "${ATTNKIT_PYTHON:-}" ]; then
    # bubblewrap: the full sandbox where the container allows user namespaces (Gradescope's usually
    # does not; then the kit confines student code with Landlock and seccomp instead)
    apt-get install -y -qq bubblewrap > /dev/null 2>&1 || echo "bubblewrap not installed"
    "$UV" python install "$PYTHON_VERSION"
    PYTHON="$("$UV" python find "$PYTHON_VERSION")"
    chmod -R a+rX "$UV_PYTHON_INSTALL_DIR"
else
    PYTHON="$ATTNKIT_PYTHON"
fi

"$UV" venv --quiet --python "$PYTHON" "$VENV"
if offline; then
    links=()
    IFS=: read -ra folders <<< "$ATTNKIT_FIND_LINKS"
    for folder in "${folders[@]}"; do links+=(--find-links "$folder"); done
    "$UV" pip install --quiet --python "$VENV/bin/python" --no-index "${links[@]}" -r "$SOURCE/requirements.txt"
else
    "$UV" pip install --quiet --python "$VENV/bin/python" --index-url "$TORCH_INDEX" "$TORCH_PIN"
    "$UV" pip install --quiet --python "$VENV/bin/python" -r "$SOURCE/requirements.txt"
fi
"$VENV/bin/python" -c "import torch; assert not torch.version.cuda, 'a CUDA build of torch was installed'"
"$VENV/bin/python" -m compileall -q -j 0 "$SOURCE/autograder" > /dev/null
# the quiz files checked once here, not before every submission (stamps: autograder/quiz/checked.py)
(cd "$SOURCE" && ATTNKIT_CACHE="$SOURCE/.cache" PYTHONPATH="$SOURCE" "$VENV/bin/python" -m autograder.quiz check)
chmod -R a+rX "$VENV"

# Only root (run_autograder) reads the kit: student code runs as another uid.
chown -R root:root "$SOURCE" 2> /dev/null || true
chmod -R go-rwx "$SOURCE"
echo "attention-kit autograder installed: $("$VENV/bin/python" --version), torch $("$VENV/bin/python" -c 'import torch; print(torch.__version__)')"
