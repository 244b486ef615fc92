"""The selection labels (bench/labels/selection.jsonl) and the cue scorer on the real news pages
of the shared data; skipped when ../shared/data is absent. Bounds, not counts: the benchmark
(bench/selection.py) prints the numbers."""

import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import selection as bench  # noqa: E402  (bench/selection.py)
from _common import FUNDUS_WARC, split_half  # noqa: E402


def test_the_labels_file_is_well_formed_and_covers_both_halves_and_many_languages():
    labels = bench.load_labels()
    assert len(labels) >= 300
    assert len({(r["set"], r["url"]) for r in labels}) == len(labels)
    assert all(r["label"] in (0, 1) and r["reason"].strip() and r["set"] in ("fundus", "trafilatura") for r in labels)
    assert Counter(r["set"] for r in labels)["fundus"] == 256  # every page of the fundus WARC
    halves = Counter((split_half(r["url"]), r["label"]) for r in labels)
    assert all(halves[(h, y)] >= 20 for h in ("tune", "heldout") for y in (0, 1))
    languages = Counter(r["language"] for r in labels if r["label"])
    assert len(languages) >= 10 and languages["en"] < sum(languages.values()) / 2


@pytest.mark.slow  # over 10 s: `make test-slow` and CI
@pytest.mark.skipif(not FUNDUS_WARC.is_file(), reason=f"shared data absent: {FUNDUS_WARC} (see ../shared/data/README.md)")
def test_the_cue_scorer_on_the_real_fundus_pages(tmp_path):
    labels = [r for r in bench.load_labels() if r["set"] == "fundus"]
    pages = bench.load_pages(labels, cache=None)
    assert all(p["title"] or p["text"] for p in pages)
    from pastcast.questions.selection import CUES, CUES_V1

    base = sum(p["label"] for p in pages) / len(pages)
    current = bench.scores(pages, bench.cue_decisions(pages, CUES))
    before = bench.scores(pages, bench.cue_decisions(pages, CUES_V1))
    for half in ("tune", "heldout"):
        now, then = current[half], before[half]
        assert then["other"]["selected"] == 0  # the English-only list never passed another language
        assert now["other"]["true_positives"] > 0  # the current lists do
        assert now["all"]["recall"] > then["all"]["recall"]
        assert now["all"]["precision"] > base  # better than sending pages at random
