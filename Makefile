# Attention kit. `make test` sets everything up on a fresh machine, then runs the project's tests.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
SUBMISSIONS ?=
OUT ?=
ROSTER ?=
DUE ?=
N ?= 200
PARTS ?=

.PHONY: course-shape help setup test grade review assignments check-assignments release gradescope bench bench-startup bench-empty bench-review bench-tests bench-watch \
        sweep mutants sandbox-tools browser-tools clean quiz-learn bench-learn \
        report-screenshots

help:
	@echo "make test                         set up (first time) and run the kit's tests"
	@echo "make grade [SUBMISSIONS=dir-or-zip OUT=dir ROSTER=canvas-export.csv DUE=2026-11-25T23:59-08:00 PARTS=attention_scores,quiz:attention_score]  grade a class (default: the demo class)"
	@echo "make review [OUT=dir BROWSER=no]  score the quiz answers grading left to you, on a local page (default OUT: out/demo;"
	@echo "                                  BROWSER=no: print its address, open no browser); Ctrl-C ends it, every decision saved"
	@echo "make assignments                  regenerate notebooks, .py twins, checks and graders from source/"
	@echo "make release [PARTS=a,quiz:b]     pack the student handout into dist/ (PARTS: only these parts)"
	@echo "make gradescope [OUT=dir PARTS=a] build the Gradescope autograder zip into dist/ (with OUT: its review decisions)"
	@echo "make report-screenshots           grade the demo class, then screenshot class reports in headless Chromium"
	@echo "make browser-tools                install Debian's chromium where possible (the review page's browser test)"
	@echo "make bench [N=200]                time grading per submission (docs/isolation.md: sandbox), then bench-startup"
	@echo "make bench-startup                start-up profile (classes of 1, 10, 80, 1000) and one submission vs import torch"
	@echo "make bench-empty [EMPTY=10000]    time grading a class of empty folders (no sandbox needed)"
	@echo "make bench-review [REVIEW_CLASS=200]  clear a class's quiz review in headless Chromium; prints the minutes"
	@echo "make quiz-learn OUT=dir [WRITE=1]  what the finished review in OUT teaches the quizzes (a diff; WRITE=1 writes it)"
	@echo "make bench-learn [FROM=set GRADE=set]  one labelled set's review learned, another set graded before and after (paths or tests/quiz names; docs/quizzes-learning.md)"
	@echo "make bench-tests                  each hidden test's time per student (cProfile, reference solutions)"
	@echo "make bench-watch                  what the kernel watch costs one probe, and what a dispatch-level mode would"
	@echo "make sweep [SEEDS=200]            every hidden test on SEEDS seeds: reference and catalogue"
	@echo "make mutants                      mutation testing of the hidden graders (kill rate, survivors)"
	@echo "make course-shape                 the engine's own tests on a copy of the course with a third assignment (~6 min)"

# torch's CPU build from PyTorch's CPU index when it answers (as the Gradescope image does); otherwise the
# pinned version from pip's configured index (a local CPU wheel, or PyPI's, which is the CUDA build on Linux).
# The last line says which build was installed.
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu
TORCH_PIN := $(shell grep -E '^torch==' requirements.txt)

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	if $(PY) -c "import urllib.request as u; u.urlopen('$(TORCH_CPU_INDEX)/torch/', timeout=10)" 2> /dev/null; then \
	  $(PY) -m pip install --quiet --index-url $(TORCH_CPU_INDEX) "$(TORCH_PIN)" || $(PY) -m pip install --quiet "$(TORCH_PIN)"; \
	else echo "$(TORCH_CPU_INDEX) does not answer: torch from pip's configured index"; \
	  $(PY) -m pip install --quiet "$(TORCH_PIN)"; fi
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 > /dev/null
	@$(PY) -c "import torch; print('torch', torch.__version__, 'CUDA build' if torch.version.cuda else 'CPU build')"
	touch $(STAMP)

# The kit's own test tooling (pytest-xdist, uv, playwright): `make test` only, never `make grade`.
TEST_STAMP := $(VENV)/.test-installed-stamp
$(TEST_STAMP): $(STAMP) requirements-test.txt
	$(PY) -m pip install --quiet -r requirements-test.txt
	touch $(TEST_STAMP)

setup: $(TEST_STAMP) sandbox-tools browser-tools

# bubblewrap gives student code its own namespaces; without it the kit confines student code with
# Landlock and seccomp (Linux 5.13+), and refuses to grade where neither works (docs/isolation.md).
sandbox-tools:
	@command -v bwrap > /dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get > /dev/null && \
	  (apt-get update -qq && apt-get install -y -qq bubblewrap > /dev/null) || \
	  echo "bubblewrap not installed: grading will use Landlock without namespaces (docs/isolation.md)"; }

# Debian's chromium: the review page's browser test drives it with Playwright (whose own browser download
# needs hosts that are often unreachable); without it that test is skipped and says why.
browser-tools:
	@command -v chromium > /dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get > /dev/null && \
	  (apt-get update -qq && apt-get install -y -qq chromium > /dev/null) || \
	  echo "chromium not installed: the review page's browser test will be skipped"; }

# Two workers (pytest-xdist): whole modules are dealt to them, heaviest first (tests/conftest.py).
TEST_WORKERS ?= 2

test: setup
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder --durations=15

# What is generated from the course (source/ and quizzes/: notebooks, graders, the demo class) is brought up to
# date before grading, packing or building, whenever a master, the course file or a quiz changed since the last
# generation: an edited quiz or master needs no `make assignments` of its own.
GENERATED := $(VENV)/.generated-stamp
$(GENERATED): $(STAMP) $(wildcard source/* quizzes/*.yaml quizzes/*.yml)
	$(PY) -m autograder.cli assignments
	touch $(GENERATED)

grade: $(STAMP) sandbox-tools $(GENERATED)
	ATTNKIT_VIA_MAKE=1 $(PY) -m autograder.cli grade $(if $(SUBMISSIONS),"$(SUBMISSIONS)") $(if $(OUT),--out "$(OUT)") $(if $(ROSTER),--roster "$(ROSTER)") $(if $(DUE),--due "$(DUE)") $(if $(PARTS),--parts "$(PARTS)")

# The quiz answers `make grade` left to a person, on a page served on 127.0.0.1; then `make grade` again with
# the same OUT applies the decisions. Nothing to review: one sentence, no page.
review: $(STAMP)
	ATTNKIT_VIA_MAKE=1 $(PY) -m autograder.cli review $(if $(filter no,$(BROWSER)),--no-open) "$(or $(OUT),out/demo)"

assignments: $(STAMP)
	$(PY) -m autograder.cli assignments

check-assignments: $(STAMP)
	$(PY) -m autograder.cli assignments --check

release: $(STAMP) $(GENERATED)
	$(PY) -m autograder.cli release $(if $(PARTS),--parts "$(PARTS)")

gradescope: $(STAMP) $(GENERATED)
	$(PY) -m autograder.cli gradescope $(if $(OUT),--review "$(OUT)") $(if $(PARTS),--parts "$(PARTS)")

clean:
	rm -rf out dist build *.egg-info

# Needs chromium (apt-get install chromium). Writes out/screenshots/*.png: the demo class's report and
# reports of in-memory classes that show every heatmap state, diagnoses and quiz item statistics.
report-screenshots: grade $(TEST_STAMP)
	$(PY) -m tests.report_screenshots --out out/screenshots

bench: setup
	$(PY) bench/bench_grading.py --n $(N)
	$(MAKE) --no-print-directory bench-startup

STARTUP_SIZES ?= 1,10,80,1000
bench-startup: setup
	$(PY) bench/bench_startup.py --sizes $(STARTUP_SIZES)

bench-tests: setup
	$(PY) bench/bench_tests.py

bench-watch: setup
	$(PY) bench/bench_watch.py

REVIEW_CLASS ?= 200
bench-review: setup
	ATTNKIT_REVIEW_CLASS=$(REVIEW_CLASS) $(PY) -m pytest -q -s -p no:xdist \
		"tests/quiz/test_quiz_review_page.py::test_a_teacher_clears_a_class_review_with_the_keyboard"

quiz-learn: $(STAMP)
	@test -n "$(OUT)" || { echo "make quiz-learn OUT=dir: the graded class whose review.yaml to learn from"; exit 2; }
	$(PY) -m autograder.quiz learn "$(OUT)" $(if $(WRITE),--write)

FROM ?= heldout6_answers.yaml
GRADE ?= heldout7_answers.yaml
bench-learn: setup
	$(PY) bench/learn_bench.py --learn-from $(FROM) --grade $(GRADE)

EMPTY ?= 10000
bench-empty: setup
	$(PY) bench/bench_empty.py --n $(EMPTY)

SEEDS ?= 200
sweep: setup
	$(PY) bench/seed_sweep.py --seeds $(SEEDS)

# cosmic-ray is needed only here, so it is installed (pinned) by this target, not by setup.
COSMIC_RAY := cosmic-ray==8.7.0
mutants: setup
	$(PY) -c "import cosmic_ray" 2> /dev/null || $(PY) -m pip install --quiet $(COSMIC_RAY)
	$(PY) bench/mutants.py

# The engine's own test modules (bench/course_shape.py: ENGINE_MODULES) in a copy of the kit with the third
# assignment of tests/new_course/ added: minutes, so not part of `make test` (which checks that those modules
# write no course's parts down: tests/test_engine_tests_course_free.py).
course-shape: setup
	$(PY) bench/course_shape.py
