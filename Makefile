# Attention kit. `make test` sets everything up on a fresh machine, then runs the project's tests.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
SUBMISSIONS ?=
OUT ?=
N ?= 200

.PHONY: help setup test grade assignments check-assignments release gradescope bench sandbox-tools clean

help:
	@echo "make test                         set up (first time) and run the kit's tests"
	@echo "make grade [SUBMISSIONS=dir OUT=dir]  grade a class (default: the bundled demo class)"
	@echo "make assignments                  regenerate notebooks, .py twins, checks and graders from source/"
	@echo "make release                      pack the student handout into dist/"
	@echo "make gradescope                   build the Gradescope autograder zip into dist/"
	@echo "make bench [N=200]                time grading per submission (docs/isolation.md: sandbox)"

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 > /dev/null
	touch $(STAMP)

setup: $(STAMP) sandbox-tools

# bubblewrap gives student code its own namespaces; without it the kit confines student code with
# Landlock and seccomp (Linux 5.13+), and refuses to grade where neither works (docs/isolation.md).
sandbox-tools:
	@command -v bwrap > /dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get > /dev/null && \
	  (apt-get update -qq && apt-get install -y -qq bubblewrap > /dev/null) || \
	  echo "bubblewrap not installed: grading will use Landlock without namespaces (docs/isolation.md)"; }

test: setup
	$(PY) -m pytest -q

grade: setup
	$(PY) -m autograder.cli grade $(SUBMISSIONS) $(if $(OUT),--out "$(OUT)")

assignments: $(STAMP)
	$(PY) -m autograder.cli assignments

check-assignments: $(STAMP)
	$(PY) -m autograder.cli assignments --check

release: $(STAMP)
	$(PY) -m autograder.cli release

gradescope: $(STAMP)
	$(PY) -m autograder.cli gradescope

clean:
	rm -rf out dist build *.egg-info

bench: setup
	$(PY) bench/bench_grading.py --n $(N)
