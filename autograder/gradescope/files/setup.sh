#!/usr/bin/env bash
# Gradescope runs this once when it builds the autograder image.
set -euo pipefail
cd /autograder/source
apt-get update -qq
apt-get install -y -qq python3 python3-venv python3-pip bubblewrap > /dev/null
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install --quiet --upgrade pip
# torch is pinned; set PIP_EXTRA_INDEX_URL to a CPU wheel index to avoid the large CUDA build.
/autograder/venv/bin/pip install --quiet -r requirements.txt
