"""Question categories: whole-word text rules in every script, a market's tags first, the
ForecastBench data source next; the readers' tags; and, on the real labelled questions, a
held-out accuracy bound and a margin over the keyword rule this replaced."""

import hashlib
import importlib.util
import json
from datetime import datetime, timezone
from pathlib import Path

import polars as pl
import pytest

from pastcast.questions import categories as cats
from pastcast.questions.categories import (KEYWORDS, SOURCES, TAG_WORDS, VOCABULARY, category_of, category_v1,
                                           market_category, market_source, tag_classes)
from pastcast.schemas import MARKETS, conform, frame
from warcs import SHARED, needs_shared

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "markets"
LABELS = ROOT / "bench" / "labels" / "categories.jsonl"


# ------------------------------------------------------------------ text rules

@pytest.mark.parametrize("title, accident, want", [
    ("Will OpenAI offer ChatGPT in China before 2026?", "sports", "technology"),          # "open"
    ("Will the corporate headquarters of Acme move to Austin?", "economy", "other"),       # "rate"
    ("Will construction start on the Kestrel Bay tram before June?", "culture", "other"),  # "art"
    ("Will protesters occupy Tahrir Square in 2026?", "sports", "politics"),               # "cup"
    ("Will Oscar Piastri win a Formula 1 race in 2024?", "sports", "sports"),
    ("Will the Democrats win the Tennessee governor race in 2026?", "politics", "politics"),
])
def test_whole_words_only(title, accident, want):
    assert category_v1(title) == accident  # what the replaced rule made of it
    assert category_of(title) == want


def test_a_prefix_matches_words_that_start_with_it_and_nothing_inside_them():
    assert category_of("Will the 2026 Veloria elections be postponed?") == "politics"  # election*
    assert category_of("Will Ukraine lose non-Crimean territory by 2029?") == "conflict"  # not crime*
    assert category_of("Will a cryptid be discovered by 2040?") == "science"  # not crypto
    assert category_of("Will Bitcoin reach $150K in 2025?") == "crypto"


def test_the_highest_score_wins_and_no_phrase_is_other():
    assert category_of("Will the Fed cut interest rates before the election?") == "economy"  # 2+2 against 2
    assert category_of("Will the Portland Trail Blazers win the NBA Western Conference Finals?") == "sports"
    assert category_of("Will Kizaru betray the Marines?") == "other"
    assert category_of("") == category_of(None) == "other"


@pytest.mark.parametrize("title, want", [
    ("Россия выиграет чемпионат мира по футболу?", "sports"),
    ("Будет ли война между Индией и Пакистаном в 2025 году?", "conflict"),
    ("中国会在2027年前入侵台湾吗？", "conflict"),
    ("比特币会在2025年突破15万美元吗？", "crypto"),
    ("¿Ganará Sheinbaum las elecciones de 2030?", "politics"),
    ("Wird die Inflation in Deutschland 2026 über 3 % liegen?", "economy"),
    ("Qui remportera la Coupe du monde 2026 ?", "sports"),
])
def test_other_scripts_and_languages(title, want):
    assert category_of(title) == want


@pytest.mark.parametrize("title", [
    "ใครจะชนะการเลือกตั้งกรุงเทพฯ", "هل سيفوز الأهلي بالدوري؟", "東京の明日の天気は晴れ？", "🔥🔥🔥 ???",
    "नई दिल्ली में कौन जीतेगा", "Ο Ολυμπιακός θα κερδίσει;", "ａｉ　ｍｏｄｅｌ　２０２６", "\u200b\u00ad",
])
def test_text_in_any_script_gives_a_class_of_the_vocabulary(title):
    assert category_of(title) in VOCABULARY
    assert category_of(title, tags=[title], source=title) in VOCABULARY


def test_an_unknown_script_falls_back_to_other_not_to_an_accident():
    assert category_of("ใครจะชนะการเลือกตั้งกรุงเทพฯ") == "other"  # Thai: no phrases, no accident
    assert category_v1("Open ใคร") == "sports"  # the old rule read "Open" anywhere


# ------------------------------------------------------------------ tags and sources

def test_tags_win_over_the_text():
    title = 'Will Trump say "Crypto" this week?'
    assert category_of(title) == "crypto"
    assert category_of(title, tags=["Politics"]) == category_of(title, tags="Politics") == "politics"
    # several classes named: the text chooses among them only
    chile = "Will the Chilean government pass legislation nationalizing private pension fund assets?"
    assert category_of(chile, tags=["Business", "Finance", "Non-US Politics"]) == "politics"
    # the text names none of them: the class most tags name, then the first tag's
    assert category_of("Will X happen?", tags=["Business", "Companies", "Finance"]) == "business"
    assert category_of("Will X happen?", tags=["Finance", "Business"]) == "economy"


def test_tags_that_name_no_class_are_ignored():
    title = "Will Rafael Nadal win the 2022 Men's French Open?"
    for tags in (["Open"], ["Scott Alexander 2022", "Short-fuse"], ["Featured", "All"], [], None, [None, 3]):
        assert category_of(title, tags=tags) == category_of(title) == "sports"


@pytest.mark.parametrize("tag, want", [
    ("Geopolitics – Armed Conflict", {"conflict", "politics"}),
    ("Economy & Business", {"economy", "business"}),
    ("Climate and Weather", {"climate"}),
    ("Novel Coronavirus (Covid-19)", {"health"}),
    ("us-politics", {"politics"}),
    ("nba", {"sports"}),
    ("Pop Culture", {"culture"}),
    ("Law – Court Cases", {"law"}),
    ("Crimea", set()),   # not crime*
    ("Macron", set()),   # not macro*
    ("Open", set()),
])
def test_tag_words(tag, want):
    assert set(tag_classes(tag)) == want


def test_forecastbench_sources_decide_where_they_can():
    assert category_of("Will there be more 'Protests' in Faroe Islands for the 30 days before 2025-12-14?",
                       source="acled") == "conflict"
    corporate = "Will the effective yield of the ICE BofA US Corporate Index have increased by 2025-12-14?"
    assert category_of(corporate, source="fred") == "economy"
    assert category_of("Will KMB's market close price on 2024-07-28 be higher than on 2024-07-21?",
                       source="yfinance") == "economy"
    temperature = "Will the daily average temperature at the French weather station at Lille be higher on 2024-07-28?"
    assert category_of(temperature, source="dbnomics") == "climate"
    assert category_of("Will the euro area unemployment series be higher on 2024-07-28?", source="dbnomics") == "economy"
    assert category_of("Will the index of X be higher on 2024-07-28?", source="dbnomics") == "economy"
    # Wikipedia questions go by their subject
    assert category_of("According to Wikipedia, will a vaccine have been developed for Valley fever by 2025-12-14?",
                       source="wikipedia") == "health"
    assert category_of("According to Wikipedia, will Hou Yifan have an Elo rating on 2025-12-14 that's at least "
                       "1% higher than on 2025-12-07?", source="wikipedia") == "sports"
    assert category_of("According to Wikipedia, will Léon Marchand still hold the world record for 200m "
                       "individual medley?", source="wikipedia") == "sports"
    # tags come before the source
    assert category_of("Will there be more 'Battles' in Togo?", source="acled", tags=["Sports"]) == "sports"


def test_market_source_and_market_category():
    assert market_source("forecastbench:acled:abc:2025-12-07:2025-12-14") == "acled"
    assert market_source("forecastbench:metaculus:7664") == "metaculus"
    assert market_source("manifold:abc") == "manifold"
    assert market_source(None) is None
    row = {"market_id": "forecastbench:fred:DGS10:2024-07-21:2024-07-28", "question": "Will the corporate yield rise?"}
    assert market_category(row) == "economy"  # a row of a table written before the tags column
    assert market_category({**row, "tags": ["Sports"]}) == "sports"


def test_one_vocabulary_everywhere():
    assert set(KEYWORDS) <= set(VOCABULARY) and set(TAG_WORDS) <= set(VOCABULARY)
    assert {c for among, default in SOURCES.values() for c in (*among, default)} <= set(VOCABULARY)
    assert {"economy", "politics", "sports", "culture", "business", "law", "other"} <= set(VOCABULARY)


def test_the_old_import_path_is_the_classifier_and_its_patterns_are_word_bounded():
    from pastcast.questions.extractive import CATEGORIES, category_of as extractive_category_of

    assert extractive_category_of is category_of
    first = next((n for n, p in CATEGORIES if p.search("Will OpenAI offer ChatGPT in China before 2026?")), "other")
    assert first == "technology"
    # the patterns run in polars' regex engine as peer imports run them
    titles = pl.Series("t", ["Will OpenAI offer ChatGPT in China?", "Who will win the mayoral election?", "Who?"])
    out = pl.lit("other")
    for name, pattern in reversed(CATEGORIES):
        out = pl.when(pl.col("t").str.contains("(?i)" + pattern.pattern)).then(pl.lit(name)).otherwise(out)
    assert pl.DataFrame(titles).select(out.alias("c"))["c"].to_list() == ["technology", "politics", "other"]


# ------------------------------------------------------------------ readers and the markets table

def _write(path: Path, doc) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_manifold_group_slugs_are_tags(tmp_path):
    from pastcast.sources.manifold import read_manifold

    market = json.loads((FIXTURES / "manifold" / "market_full.json").read_text())
    market["groupSlugs"] = ["sports-default", "nba", "nba", " ", 7]
    rows = read_manifold([_write(tmp_path / "m.json", market)]).frame("markets", MARKETS)
    assert rows["tags"].to_list() == [["sports-default", "nba"]]
    without = read_manifold([FIXTURES / "manifold" / "market_full.json"]).frame("markets", MARKETS)
    assert without["tags"].to_list() == [[]]


def test_metaculus_topical_projects_are_tags(tmp_path):
    from pastcast.sources.metaculus import read_metaculus

    page = json.loads((FIXTURES / "metaculus" / "posts_page.json").read_text())
    page["results"][0]["projects"] = {
        "category": [{"id": 3690, "name": "Nuclear Technology & Risks", "slug": "nuclear"}],
        "tag": [{"name": "Space"}], "tournament": [{"id": 1, "name": "Quarterly Cup"}],
        "site_main": [{"id": 144, "name": "Metaculus Community"}]}
    rows = read_metaculus([_write(tmp_path / "p.json", page)]).frame("markets", MARKETS)
    tags = dict(zip(rows["market_id"], rows["tags"].to_list()))
    question = page["results"][0]["question"]["id"]
    assert tags.pop(f"metaculus:{question}") == ["Nuclear Technology & Risks", "Space"]  # no tournament
    assert tags and all(t == [] for t in tags.values())  # posts without projects


def test_polymarket_and_kalshi_fixtures_carry_their_tags():
    from pastcast.sources.kalshi import read_kalshi
    from pastcast.sources.polymarket import read_polymarket

    poly = read_polymarket(sorted((FIXTURES / "polymarket").glob("*.json"))).frame("markets", MARKETS)
    tags = dict(zip(poly["market_id"], poly["tags"].to_list()))
    assert tags["polymarket:event:903193"] == ["Politics"]
    kalshi = read_kalshi(sorted((FIXTURES / "kalshi").glob("*.json"))).frame("markets", MARKETS)
    by_id = {m["market_id"]: m for m in kalshi.iter_rows(named=True)}
    assert by_id["kalshi:event:KXHIGHNY-25AUG14"]["tags"] == ["Climate and Weather"]
    assert market_category(by_id["kalshi:event:KXHIGHNY-25AUG14"]) == "climate"
    trump_crypto = by_id["kalshi:KXTRUMPSAY-25NOV17-CRYP"]
    assert trump_crypto["tags"] == ["Politics"] and market_category(trump_crypto) == "politics"


def test_tags_from_the_market_reach_the_question():
    from pastcast.questions.markets import market_questions

    def day(d: str) -> datetime:
        return datetime.fromisoformat(d).replace(tzinfo=timezone.utc)

    row = {"market_id": "polymarket:1", "platform": "polymarket", "question": 'Will Trump say "Crypto" this week?',
           "background": "", "resolution_criteria": "As announced.", "outcome_type": "binary",
           "outcomes": ["Yes", "No"], "status": "resolved", "created_at": day("2025-11-01"),
           "close_at": day("2025-11-20"), "resolved_at": day("2025-11-20"), "resolution": "Yes",
           "tags": ["Politics"]}
    questions, _ = market_questions(frame([row], MARKETS))
    assert questions["category"].to_list() == ["politics"]
    acled = {**row, "market_id": "forecastbench:acled:x:2025-11-01:2025-11-20", "platform": "forecastbench",
             "question": "Will there be more 'Protests' in Togo for the 30 days before 2025-11-20?", "tags": []}
    assert category_of(acled["question"]) == "politics"
    questions, _ = market_questions(frame([acled], MARKETS))
    assert questions["category"].to_list() == ["conflict"]  # the source decides
    old = frame([row], MARKETS).drop("tags")  # a table written before the column
    questions, _ = market_questions(old)
    assert questions["category"].to_list() == ["crypto"]
    assert conform(old, MARKETS, "markets")["tags"].to_list() == [None]


# ------------------------------------------------------------------ the labelled set

def _labels() -> list[dict]:
    return [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines() if line.strip()]


def _bench_categories():
    """bench/categories.py (it imports bench/_common as ``_common``)."""
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    try:
        spec = importlib.util.spec_from_file_location("bench_categories", ROOT / "bench" / "categories.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return module


def _split_seed() -> str:
    spec = importlib.util.spec_from_file_location("bench_common", ROOT / "bench" / "_common.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SPLIT_SEED


def test_the_labelled_set_is_split_by_template_family():
    split_key = _bench_categories().split_key

    rows = _labels()
    assert len(rows) >= 200 and {r["label"] for r in rows} <= set(VOCABULARY)
    seed = _split_seed()
    for r in rows:
        digest = hashlib.sha256(f"{seed}:categories:{split_key(r['title'])}".encode()).digest()
        assert r["half"] == ("tune" if digest[0] % 2 == 0 else "heldout"), r["id"]
    halves = {h: sum(r["half"] == h for r in rows) for h in ("tune", "heldout")}
    assert min(halves.values()) >= 0.4 * len(rows)


@needs_shared
def test_real_heldout_accuracy_and_the_margin_over_the_replaced_rule():
    from pastcast.sources.forecastbench import read_forecastbench

    folder = SHARED / "markets" / "forecastbench"
    autocast_file = SHARED / "markets" / "autocast" / "autocast_competition_test_set.json"
    if not folder.is_dir() or not autocast_file.is_file():
        pytest.skip(f"ForecastBench or Autocast files not present under {SHARED / 'markets'}")
    markets = {m["market_id"]: m for m in
               read_forecastbench(sorted(folder.glob("*.json"))).frame("markets", MARKETS).iter_rows(named=True)}
    autocast: dict[str, dict] = {}
    for q in json.loads(autocast_file.read_text(encoding="utf-8")):
        autocast.setdefault(f"autocast:{q['id']}", q)
    heldout = [r for r in _labels() if r["half"] == "heldout"]
    new, old, title_only = [], [], []
    for r in heldout:
        if r["set"] == "autocast":
            q = autocast[r["id"]]
            got = category_of(q["question"], tags=q.get("tags"))
            title = q["question"]
        else:
            m = markets[r["id"]]  # the reader's row, as market_questions classifies it
            got, title = market_category(m), m["question"]
        assert title == r["title"]
        new.append(got == r["label"])
        old.append(category_v1(title) == r["label"])
        title_only.append(category_of(title) == r["label"])
    n = len(heldout)
    accuracy, old_accuracy = sum(new) / n, sum(old) / n
    assert n >= 100
    assert accuracy >= 0.85, f"held-out accuracy {accuracy:.3f}"
    assert accuracy >= old_accuracy + 0.4, f"{accuracy:.3f} against the replaced rule's {old_accuracy:.3f}"
    is_autocast = [r["set"] == "autocast" for r in heldout]
    with_tags = sum(a for a, t in zip(new, is_autocast) if t)
    text_alone = sum(a for a, t in zip(title_only, is_autocast) if t)
    assert with_tags > text_alone  # the platform's tags add what the title leaves out


def test_classifying_is_cheap():
    import time

    text = "Will the Fed cut interest rates before the 2026 election? " * 10
    start = time.perf_counter()
    for _ in range(500):
        cats.text_scores(text)
    assert time.perf_counter() - start < 5.0
