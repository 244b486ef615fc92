"""Templated families are capped so no one template dominates a snapshot."""

from collections import Counter

import polars as pl

from evalkit import question
from pastcast.questions.templates import TemplateCapConfig, cap_families, family_cap, template_family
from pastcast.schemas import QUESTIONS, frame
from warcs import SHARED, needs_shared


def test_a_family_masks_numbers_quotes_and_names():
    a = template_family("Will WSM's market close price on 2025-12-14 be higher than on 2025-12-07?")
    b = template_family("Will AAPL's market close price on 2026-01-04 be higher than on 2025-12-28?")
    assert a == b
    assert template_family("Who will win the 2026 Kestrel Bay mayoral election?") != \
        template_family("Which team will win the 2026 Veloria Cup?")


def test_the_cap_keeps_every_family_within_its_share_or_the_floor():
    sizes = [306, 204, 155, 91, 52, 40, 20, 5, 3, 1]
    cap = family_cap(sizes, 0.1, 10)
    kept = sum(min(s, cap) for s in sizes)
    assert (cap <= 0.1 * kept or cap == 10) and cap >= 10
    assert family_cap([400] + [20] * 40, 0.1, 10) <= 0.1 * (min(400, 100) + 800)
    assert family_cap([3, 2, 1], 0.1, 10) >= 3  # a small set keeps everything


def _family(n, template, start=0, source_kind="market"):
    return [question(f"{template[:3]}{i}", template.format(i=i), "Yes", "2026-01-01", "2026-02-01",
                     answer_type="binary", source_kind=source_kind) for i in range(start, start + n)]


def test_cap_families_drops_the_excess_with_a_reason_and_is_stable():
    rows = (_family(60, "Will series S{i} rise above 5 by 2026-02-01?")
            + _family(5, "Who will chair the board of Harbour{i} in 2026?")
            + [question(f"q{i}", t, "Ana Ruiz", "2026-01-01", "2026-02-01", source_kind="market")
               for i, t in enumerate(["Who will win the 2026 Kestrel Bay mayoral election?",
                                      "Which team will win the 2026 Veloria Cup?"])])
    questions = frame(rows, QUESTIONS)
    config = TemplateCapConfig(max_share=0.25, min_per_family=3)
    result = cap_families(questions, config)
    families = Counter(template_family(t) for t in result.kept["title"])
    assert max(families.values()) <= max(3, 0.25 * result.kept.height)
    assert result.kept.height + len(result.drops) == questions.height
    assert {d.reason for d in result.drops} == {"template_family_cap"}
    assert all(t in set(result.kept["title"]) for t in ("Which team will win the 2026 Veloria Cup?",))
    again = cap_families(questions.sample(fraction=1.0, shuffle=True, seed=3), config)
    assert set(again.kept["question_id"]) == set(result.kept["question_id"])
    assert cap_families(questions, TemplateCapConfig(max_share=None)).kept.height == questions.height


def test_news_questions_are_never_grouped_into_families():
    news = _family(60, "Who will win the 2026 Cup of Region{i}?", source_kind="news")
    result = cap_families(frame(news, QUESTIONS), TemplateCapConfig(max_share=0.1, min_per_family=3))
    assert result.kept.height == 60 and not result.drops


def test_names_are_masked_in_every_cased_script():
    assert template_family("Будет ли Москва выше на 2025-07-01?") == template_family("Будет ли Казань выше на 2025-08-01?")
    assert template_family("Θα κερδίσει η Ελλάδα το 2026;") == template_family("Θα κερδίσει η Κύπρος το 2027;")
    assert template_family("Will Martin Ødegaard score in 2026?") == template_family("Will Łukasz Fabiański score in 2027?")


def test_names_joined_by_a_dash_are_one_name():
    assert template_family("Will it be warmer at the Heathrow – London station on 2025-07-01?") == \
        template_family("Will it be warmer at the Gatwick station on 2025-07-01?")


@needs_shared
def test_no_template_family_dominates_the_real_forecastbench_questions():
    from pastcast.questions.markets import market_questions
    from pastcast.schemas import MARKETS
    from pastcast.sources.forecastbench import read_forecastbench

    imported = read_forecastbench(sorted((SHARED / "markets" / "forecastbench").glob("*.json")))
    questions, _ = market_questions(imported.frame("markets", MARKETS))
    before = Counter(template_family(t) for t in questions["title"])
    assert max(before.values()) > 0.1 * questions.height  # the raw set is dominated
    result = cap_families(questions)
    after = Counter(template_family(t) for t in result.kept["title"])
    assert max(after.values()) <= max(10, 0.1 * result.kept.height)
    sources = set(result.kept["source_ids"].list.get(0).str.split(":").list.get(1))
    assert {"acled", "yfinance", "fred", "manifold", "metaculus"} <= sources


def test_a_family_whose_earlier_outcomes_agree_answers_by_its_base_rate():
    """Decided from the members resolved before a question opens, never from its own answer."""
    from pastcast.questions.templates import base_rate_answers

    earlier = [question(f"old{i}", f"Will a vaccine have been developed for Disease{i} by 2025-01-01?", "No",
                        "2024-07-01", "2024-12-01", answer_type="binary", source_kind="market") for i in range(12)]
    later = [question(f"new{i}", f"Will a vaccine have been developed for Illness{i} by 2026-01-01?", answer,
                      "2025-01-01", "2025-12-01", answer_type="binary", source_kind="market")
             for i, answer in enumerate(["No", "Yes"])]
    result = base_rate_answers(frame(earlier + later, QUESTIONS))
    # both later questions go, the surprise too; the earlier ones had no earlier members
    assert {d.item_id for d in result.drops} == {"new0", "new1"}
    assert {d.reason for d in result.drops} == {"base_rate_answers"}
    assert "12 of the 12" in result.drops[0].detail
    mixed = earlier[:6] + [{**q, "answer": "Yes"} for q in earlier[6:]] + later
    assert not base_rate_answers(frame(mixed, QUESTIONS)).drops  # 50% is no base rate
    few = earlier[:5] + later
    assert not base_rate_answers(frame(few, QUESTIONS)).drops  # too few to count
    off = base_rate_answers(frame(earlier + later, QUESTIONS), TemplateCapConfig(max_base_rate=None))
    assert not off.drops
