"""A market question shows its market's text as of its open date: updates appended later go."""

from datetime import date

import polars as pl

from pastcast.questions.market_text import UPDATE_MARKER, _marker_date, as_of
from warcs import SHARED, needs_shared

TEXT = ("Resolves YES if the treaty is signed.\n\n"
        "Update 2025-03-01 (PST) (AI summary of creator comment): signatures by envoys count.\n\n"
        "Edit: an undated clarification.\n\n"
        "Update 2025-06-23 (PST) (AI summary of creator comment): may resolve YES even if only one "
        "party ratifies.\n\nLater text with no marker of its own.")


def test_updates_after_the_day_and_everything_appended_after_them_are_cut():
    kept, cut = as_of(TEXT, date(2025, 4, 1))
    assert "signatures by envoys" in kept and "undated clarification" in kept
    assert "may resolve YES" not in kept and "Later text" not in kept and cut == date(2025, 6, 23)
    before, cut = as_of(TEXT, date(2025, 1, 1))
    assert before == "Resolves YES if the treaty is signed." and cut == date(2025, 3, 1)
    assert as_of(TEXT, date(2025, 7, 1)) == (TEXT, None)


def test_update_markers_in_the_forms_creators_write():
    for line, when in [("[Edit May 6, 2025]: handing over", date(2025, 5, 6)),
                       ("**UPDATE (2025-03-01)**: clarified", date(2025, 3, 1)),
                       ("Update 2024-27-12 (PST): day and month swapped", date(2024, 12, 27)),
                       ("Edited on Sept 3rd, 2024 - more", date(2024, 9, 3)),
                       ("MOD EDIT (Nov 2, 2025 - @moderator): a ruling", date(2025, 11, 2)),
                       ("- Update 2025-05-06: bulleted", date(2025, 5, 6)),
                       ("Edit 2 (May 6, 2025): the second", date(2025, 5, 6))]:
        match = UPDATE_MARKER.search("Intro.\n\n" + line)
        assert match and _marker_date(match) == when, line
    # prose that mentions an update is no marker; nor is a date elsewhere in a line
    for prose in ("Note the update frequency: Daily", "with the update on June 21, 2019, the data",
                  "The 2025-06-23 update of the index"):
        assert as_of(f"Intro.\n\n{prose}", date(2000, 1, 1)) == (f"Intro.\n\n{prose}", None)


@needs_shared
def test_no_real_forecastbench_question_shows_text_dated_after_it_opens():
    from pastcast.questions.markets import market_questions
    from pastcast.schemas import MARKETS
    from pastcast.sources.forecastbench import read_forecastbench

    imported = read_forecastbench(sorted((SHARED / "markets" / "forecastbench").glob("*.json")))
    markets = imported.frame("markets", MARKETS)
    questions, _ = market_questions(markets)
    later = []
    for q in questions.iter_rows(named=True):
        for field in ("background", "resolution_criteria"):
            for match in UPDATE_MARKER.finditer(q[field] or ""):
                if (_marker_date(match) or date.max) > q["open_date"]:
                    later.append((q["title"], match.group(0)))
    assert later == []
    # the raw market text did carry such updates: the check is not vacuous
    raw = markets.filter(pl.col("background").str.contains(r"(?m)^Update \d{4}-\d{2}-\d{2}"))
    assert raw.height >= 5
