"""Templated families are capped so no one template dominates a snapshot."""

from collections import Counter
from datetime import date, timedelta

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


def _market(qid, title, answer, opens, resolves, source_id=None):
    return question(qid, title, answer, opens, resolves, answer_type="binary", source_kind="market",
                    source_ids=[source_id or f"m:{qid}"])


VACCINE_WORDINGS = ["Legionellosis (Legionnaires' disease)", "Marburg hemorrhagic fever (MHF)", "Pontiac fever",
                    "yellow fever", "Toxocariasis (ocular larva migrans (OLM))", "Hepatitis D",
                    "Hand, foot and mouth disease", "Herpes simplex", "Toxic shock syndrome (TSS)", "Tinea cruris"]


def test_a_family_by_structure_whatever_the_wording_of_its_slot():
    from pastcast.text.families import template_families

    vaccine = [f"According to Wikipedia, will a vaccine have been developed for {d} by 2025-0{1 + i % 9}-01?"
               for i, d in enumerate(VACCINE_WORDINGS)]
    series = ["Will the amount of money representing deposits in all US commercial banks have increased by "
              "2024-08-20 as compared to its value on 2024-07-21?",
              "Will Moody's Seasoned Aaa Corporate Bond Yield have increased by 2024-10-19 as compared to its "
              "value on 2024-07-21?",
              "Will the European Central Bank's deposit facility rate for the euro area have increased by "
              "2025-12-14 as compared to its value on 2025-12-07?"]
    records = [f"According to Wikipedia, will {who} still hold the world record for {m}m {stroke} in long course "
               f"(50 metres) swimming pools on 2025-01-17?"
               for who, m, stroke in [("César Cielo", 50, "freestyle"), ("Zhang Lin", 800, "freestyle"),
                                      ("Aaron Peirsol", 200, "backstroke"), ("Kristóf Milák", 200, "butterfly")]]
    different = ["Will there be more 'Battles' in Laos for the 30 days before 2024-07-28 compared to the 30-day "
                 "average of 'Battles' over the 360 days preceding 2024-07-21?",
                 "Will there be more than ten times as many fatalities in Chad for the 30 days before 2024-07-28 "
                 "compared to one plus the 30-day average of fatalities over the 360 days preceding 2024-07-21?",
                 "Will Ana Ruiz win the Kestrel Bay mayoral election?", "Will Ana Ruiz lose the Kestrel Bay mayoral election?",
                 "Iran Nuke in 2025?", "New Pandemic in 2025?",
                 # opposites inside one long frame are two templates, however long the frame
                 "Will the S&P 500 have decreased by 2024-08-20 as compared to its value on 2024-07-21?",
                 "Will the daily average temperature at Abbeville be higher on 2025-12-14 than on 2025-12-07?",
                 "Will the daily average temperature at Abbeville be lower on 2025-12-14 than on 2025-12-07?",
                 "According to Wikipedia, will Magnus Carlsen have an Elo rating on 2025-01-17 that's at least 1% "
                 "lower than on 2024-07-21?",
                 # a question word is no name; a short title's frame is no template
                 "Who will lead the Kestrel Bay polls on 2025-01-01?", "Will Ana Ruiz lead the Kestrel Bay polls on 2025-01-01?",
                 "Will Oppenheimer win the most Oscar awards?", "Will Pogacar win the Tour de France?"]
    titles = vaccine + series + records + different
    families = template_families(titles)
    of = dict(zip(titles, families))
    assert len({of[t] for t in vaccine}) == 1
    assert len({of[t] for t in series}) == 1
    assert len({of[t] for t in records}) == 1
    assert len({of[t] for t in different}) == len(different)  # plain-word differences are other templates
    assert template_families([None, "", "Will X rise?"])  # a missing title is its own, no error
    assert not {of[t] for t in different} & {of[vaccine[0]], of[series[0]], of[records[0]]}
    shuffled = titles[::-1]
    assert dict(zip(shuffled, template_families(shuffled))) == of  # the same set, the same families


def test_a_family_whose_earlier_outcomes_agree_fixes_the_answer():
    """Judged from the members resolved before a question opens, never from its own answer."""
    from pastcast.questions.templates import fixed_answer_families

    earlier = [_market(f"old{i}", f"Will a vaccine have been developed for {d} by 2025-01-01?", "No",
                       "2024-07-01", "2024-12-01") for i, d in enumerate(VACCINE_WORDINGS + ["Zika", "Mpox"])]
    later = [_market(f"new{i}", f"Will a vaccine have been developed for {d} by 2026-01-01?", answer,
                     "2025-01-01", "2025-12-01") for i, (d, answer) in enumerate([("Rabies", "No"), ("Dengue fever", "Yes")])]
    at_open = TemplateCapConfig(judged_at_open_only=True)
    result = fixed_answer_families(frame(earlier + later, QUESTIONS), at_open)
    # both later questions go, the surprise too; the earlier ones had nothing to count
    assert {d.item_id for d in result.drops} == {"new0", "new1"}
    assert {d.reason for d in result.drops} == {"fixed_answer_family"}
    assert "12 of the 12" in result.drops[0].detail and "(100%)" in result.drops[0].detail
    mixed = earlier[:6] + [{**q, "answer": "Yes"} for q in earlier[6:]] + later
    assert not fixed_answer_families(frame(mixed, QUESTIONS), at_open).drops  # 50% fixes nothing
    few = earlier[:4] + later
    assert not fixed_answer_families(frame(few, QUESTIONS), at_open).drops  # too few to count
    off = fixed_answer_families(frame(earlier + later, QUESTIONS), TemplateCapConfig(max_base_rate=None))
    assert not off.drops


def test_a_family_first_round_is_judged_by_its_other_rounds_never_its_own_answers():
    from pastcast.questions.templates import fixed_answer_families

    def vaccine(qid, disease, answer, opens, resolves):
        return _market(qid, f"Will a vaccine have been developed for {disease} by {resolves}?", answer, opens, resolves,
                       f"forecastbench:wikipedia:{disease}:{opens}:{resolves}")
    first = [vaccine(f"a{i}", d, "Yes" if i == 3 else "No", "2024-07-21", "2025-07-21")
             for i, d in enumerate(VACCINE_WORDINGS)]
    second = [vaccine(f"b{i}", d, "No", "2025-12-07", "2026-03-07")
              for i, d in enumerate([*VACCINE_WORDINGS, "Zika", "Mpox"])]
    result = fixed_answer_families(frame(first + second, QUESTIONS))
    # the second round counts the first (resolved by its open day: 9 of 10 No is under 95%);
    # the first round, with nothing resolved yet, counts the second round's other series (its own
    # disease left out): 11 of 11 No, so its surprise goes too
    assert {d.item_id for d in result.drops} == {q["question_id"] for q in first}
    assert "first round" in result.drops[0].detail and "other series" in result.drops[0].detail
    # whether a first-round question stays never depends on its own answer or its round's
    flipped = [{**q, "answer": "Yes"} for q in first]
    again = fixed_answer_families(frame(flipped + second, QUESTIONS))
    assert {d.item_id for d in again.drops} >= {q["question_id"] for q in first}
    alone = fixed_answer_families(frame(first, QUESTIONS))  # one round, nothing else to count
    assert not alone.drops
    at_open = fixed_answer_families(frame(first + second, QUESTIONS), TemplateCapConfig(judged_at_open_only=True))
    assert not {d.item_id for d in at_open.drops} & {q["question_id"] for q in first}  # first rounds kept
    unresolved = [{**q, "answer": None} for q in second]
    assert not fixed_answer_families(frame(first + unresolved, QUESTIONS)).drops  # no answer is no "None" answer


def test_a_series_is_kept_at_few_horizons_spread_across_question_sets():
    from pastcast.questions.templates import cap_series_horizons, series_of

    assert series_of("forecastbench:fred:SP500:2024-07-21:2024-08-20") == "forecastbench:fred:SP500"
    assert series_of("forecastbench:manifold:abc") is None
    rounds = [("2024-07-21", [7, 30, 90, 180, 365]), ("2025-12-07", [7, 30, 90])]
    rows = []
    for opens, horizons in rounds:
        for h in horizons:
            resolves = (date.fromisoformat(opens) + timedelta(days=h)).isoformat()
            rows.append(_market(f"sp{opens}{h}", f"Will the S&P 500 have increased by {resolves} as compared to its "
                                f"value on {opens}?", "Yes", opens, resolves,
                                f"forecastbench:fred:SP500:{opens}:{resolves}"))
    markets = [_market(f"m{i}", f"Will team {i} win?", "No", "2024-07-21", "2024-09-01") for i in range(4)]
    questions = frame(rows + markets, QUESTIONS)
    result = cap_series_horizons(questions)
    kept = result.kept.filter(pl.col("question_id").str.starts_with("sp"))
    spans = sorted((r - o).days for o, r in zip(kept["open_date"], kept["resolution_date"]))
    assert spans == [7, 365]  # the shortest and the longest, not the first two
    assert {d.reason for d in result.drops} == {"series_horizon_cap"} and len(result.drops) == len(rows) - 2
    assert "forecastbench:fred:SP500" in result.drops[0].detail
    assert set(markets_ids := [q["question_id"] for q in markets]) <= set(result.kept["question_id"]), markets_ids
    three = cap_series_horizons(questions, TemplateCapConfig(max_horizons=3)).kept
    assert three.filter(pl.col("question_id").str.starts_with("sp")).height == 3
    assert cap_series_horizons(questions, TemplateCapConfig(max_horizons=None)).kept.height == questions.height


@needs_shared
def test_the_real_forecastbench_set_keeps_no_fixed_family_and_few_horizons():
    from pastcast.questions.markets import market_questions
    from pastcast.questions.templates import series_of, template_steps
    from pastcast.schemas import MARKETS
    from pastcast.sources.forecastbench import read_forecastbench
    from pastcast.text.families import template_families

    imported = read_forecastbench(sorted((SHARED / "markets" / "forecastbench").glob("*.json")))
    questions, _ = market_questions(imported.frame("markets", MARKETS))
    result = template_steps(questions)
    kept = result.kept
    families: dict[str, list] = {}
    for family, answer in zip(template_families(kept["title"].to_list()), kept["answer"].to_list()):
        families.setdefault(family, []).append(answer)
    fixed = [a for a in families.values() if len(a) >= 5 and Counter(a).most_common(1)[0][1] / len(a) >= 0.95]
    assert sum(map(len, fixed)) <= 0.02 * kept.height
    series = Counter(s for s in (series_of(ids[0]) for ids in kept["source_ids"].to_list()) if s)
    assert max(series.values()) <= 2
    # the real markets are what the stage keeps: (nearly) every one stays
    platforms = ("manifold", "metaculus", "polymarket", "infer")
    real = questions.filter(pl.col("source_ids").list.get(0).str.split(":").list.get(1).is_in(platforms))
    assert kept.filter(pl.col("question_id").is_in(real["question_id"])).height >= 0.9 * real.height
    assert any(d.reason == "fixed_answer_family" and "first round" in d.detail for d in result.drops)
