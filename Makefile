# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

export LITELLM_LOCAL_MODEL_COST_MAP := True

.PHONY: venv demo test test-slow browser dev corpus clean bench-ingest bench-dedup bench-social bench-llm bench-questions

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,dask]'
	touch $(STAMP)

demo: venv
	$(BIN)/pastcast demo

# `make test` leaves out the tests marked slow (each over ~10 s, or over real third-party data)
# so it stays under 10 minutes on 2 cores; `make test-slow` runs those, and CI runs both.
test: venv
	$(BIN)/python -m pytest -q -m "not slow"

test-slow: venv
	$(BIN)/python -m pytest -q -m slow

# The report's browser test drives a real headless Chromium: Debian's package (root; apt's
# registry is the only network it needs). Without it that test is skipped with the reason.
browser:
	command -v chromium >/dev/null || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; }

# The UI and the daemon on http://localhost:$(DEV_PORT) (docs/operations.md). The instance config
# (deploy/dagster.yaml: run queue limits for a small machine) is copied in when $(DEV_HOME) has
# none; an edited one is left as it is. AUTOMATIONS=on starts the three sensors and the nightly
# schedule running (off: stopped until turned on in the UI). deploy/dev.py runs `dg dev` and takes
# it down whole: after Ctrl-C or a SIGTERM to make, no webserver, daemon or code server is left.
AUTOMATIONS ?= off
DEV_PORT ?= 3000
DEV_HOME ?= $(CURDIR)/.dagster
dev: venv
	mkdir -p $(DEV_HOME)
	test -f $(DEV_HOME)/dagster.yaml || cp deploy/dagster.yaml $(DEV_HOME)/dagster.yaml
	DAGSTER_HOME=$(DEV_HOME) PASTCAST_AUTOMATIONS=$(AUTOMATIONS) exec $(BIN)/python deploy/dev.py \
	  $(BIN)/dg dev -w workspace.yaml -p $(DEV_PORT)

corpus: venv
	$(BIN)/python corpora/build_sample.py

# Ingest benchmarks on the real data in ../shared/data (see bench/README.md); outputs in .bench-cache/
bench-ingest: venv
	$(BIN)/python bench/ingest_accuracy.py
	$(BIN)/python bench/ingest_speed.py

# Dedup benchmarks (see bench/README.md): labelled near-duplicates from the real pages in
# ../shared/data, then speed vs datasketch (the `bench` extra) and the incremental index
BENCH_STAMP := $(VENV)/.installed-bench

$(BENCH_STAMP): $(STAMP) pyproject.toml
	$(BIN)/pip install --quiet -e '.[test,dask,bench]'
	touch $(BENCH_STAMP)

bench-dedup: venv $(BENCH_STAMP)
	$(BIN)/python bench/dedup_labelled.py
	$(BIN)/python bench/dedup_speed.py

clean:
	rm -rf snapshots runs data .dagster

# Social import at dump scale (see bench/README.md): a synthetic 1M-comment Pushshift dump,
# streamed vs held whole, side by side
bench-social: venv
	$(BIN)/python bench/social_import.py --records 1000000

# LLM generation against the loopback OpenAI-protocol server of the tests (see bench/README.md)
bench-llm: venv
	$(BIN)/python bench/llm_generation.py
	$(BIN)/python bench/llm_generation.py --latency 0.5 --throughput-articles 30 --articles 0

# The offline question generator: event recall and precision on the sample, and every question
# it writes from the real news pages in ../shared/data, for reading (see bench/README.md)
bench-questions: venv
	$(BIN)/python bench/extractive_questions.py

# The evaluator at corpus scale: a synthetic 1M-article, 90-day, 330-question snapshot replayed
# with the retrieval baseline; search latency, replay time, index size, peak memory (see bench/README.md)
.PHONY: bench-eval
bench-eval: venv
	$(BIN)/python bench/eval_replay.py

# Adding one crawl day to a 30-day build vs building every day again, side by side in one run,
# with a cross-check that the result equals a from-scratch build (see bench/README.md)
.PHONY: bench-days
bench-days: venv
	$(BIN)/python bench/incremental_days.py

# The retrieval baseline on a snapshot of the real data in ../shared/data: its replay beside the
# loop it had before (every question searched), searches, BSS, the candidates it submits (see bench/README.md)
.PHONY: bench-real-replay
bench-real-replay: venv
	$(BIN)/python bench/real_replay.py

# A year of news at scale: the nightly tail adding one day to 10k, 100k and 1M synthetic
# articles; wall time, peak memory, bytes written, store growth (see bench/README.md)
# The retrieval baseline's candidate extractor against hand labels on 177 real pages (one a
# publisher), the rules chosen on the tuning half, reported on the held-out half (bench/README.md)
.PHONY: bench-candidates
bench-candidates: venv
	$(BIN)/python bench/candidates.py

.PHONY: bench-scale
bench-scale: venv
	$(BIN)/python bench/scale.py

# How the ingest's drop thresholds were chosen: lengths of real articles on the tuning half of
# the gold sets (split by publisher), checked on the held-out half (see bench/README.md)
.PHONY: bench-drop-policy
bench-drop-policy: venv
	$(BIN)/python bench/drop_policy.py

# Generalisation: pastcast's ingest beside the plain libraries on the held-out half of the gold
# sets (split by publisher), a page left out counting as a miss (see bench/README.md)
.PHONY: bench-generalisation
bench-generalisation: venv
	$(BIN)/python bench/generalisation.py

# How the full-extraction threshold was chosen: snippet and token F1 and extraction time per
# threshold on the tuning half of the gold sets, checked on the held-out half (see bench/README.md)
.PHONY: bench-extraction-threshold
bench-extraction-threshold: venv
	$(BIN)/python bench/extraction_threshold.py

# The LLM generator's article selection: the cue scorer's precision and recall on 455 labelled
# real news pages (tuning and held-out halves, English and other languages apart) and what the
# LLM screen costs per article (see bench/README.md)
.PHONY: bench-selection
bench-selection: venv
	$(BIN)/python bench/selection.py

# Market and dataset question sets (issue 37): families by structure, templates that fix their
# answer, one series at few horizons; the replaced stage beside the new one (see bench/README.md)
.PHONY: bench-template-families
bench-template-families: venv
	$(BIN)/python bench/template_families.py

# Yes/no questions through every check: the outcome-report rule's precision and recall on two
# labelled sets (tuning and held-out halves), and what the checks change on the peer's July 2024
# set (CF_JULY=path, see bench/peer_yes_no.py) and on the ForecastBench build (see bench/README.md)
.PHONY: bench-yes-no
bench-yes-no: venv
	$(BIN)/python bench/yes_no_checks.py $(if $(CF_JULY),--peer-file $(CF_JULY),)

# Wrong drops of validation and question dedup on real peer market sets (issue 37): hand-labelled
# drops before and after, tune and held-out halves (PEER_REAL=folder of the consistency-forecasting
# files, default /tmp/peer; see bench/README.md)
.PHONY: bench-peer-drops
bench-peer-drops: venv
	$(BIN)/python bench/peer_drops.py $(if $(PEER_REAL),--peer-dir $(PEER_REAL),)

# Question categories against 444 hand-labelled real questions (ForecastBench, Autocast with
# their tags): the replaced keyword rule beside the classifier, tune and held-out halves (see bench/README.md)
.PHONY: bench-categories
bench-categories: venv
	$(BIN)/python bench/categories.py

# Temporal leaks: how often phrases first seen after a question opens fire on real questions against real news, tune and held-out halves (see bench/README.md)
.PHONY: bench-temporal
bench-temporal: venv
	$(BIN)/python bench/temporal_leaks.py $(if $(CF_JULY),--cf-july $(CF_JULY))
