"""`pastcast eval report` over runs of a 1,000-question snapshot, opened in a real headless
Chromium (Debian's, driven by Playwright's Python package): the page loads without console
errors, the leaderboard shows intervals, every chart draws, and the question table sorts.

Chromium is a system package (``make browser`` or ``.ci/run`` installs it); without it this
test is skipped with the reason."""

import os
import shutil
from datetime import date, timedelta

import pytest
from click.testing import CliRunner

from evalkit import article, question, ts, write_snapshot
from pastcast.cli import main
from pastcast.evaluate.runner import run_eval

QUESTIONS = 1_000
START = date(2025, 3, 1)
CATEGORIES = ("politics", "economy", "sport", "science", "weather")


def chromium() -> str | None:
    return os.environ.get("PASTCAST_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def _snapshot(root):
    questions, articles = [], []
    for i in range(QUESTIONS):
        opens = START + timedelta(days=i % 20)
        resolves = opens + timedelta(days=5 + i % 9)
        category = CATEGORIES[i % len(CATEGORIES)]
        if i % 4 == 3:  # a free-form question among the yes/no ones
            questions.append(question(f"q{i:04d}", f"Who will lead the {category} board {i}?",
                                      ("Ana Ruiz", "Bo Lind", "Cy Moss")[i % 3], opens.isoformat(), resolves.isoformat(),
                                      category=category, source_kind="news"))
        else:
            questions.append(question(f"q{i:04d}", f"Will the {category} index rise in week {i % 7}?",
                                      "Yes" if i % 3 else "No", opens.isoformat(), resolves.isoformat(),
                                      answer_type="binary", candidate_outcomes=["Yes", "No"], category=category,
                                      source_kind="market" if i % 2 else "dataset"))
    for d in range(0, 40, 3):
        day = START + timedelta(days=d)
        articles.append(article(f"a{d}", f"Markets on day {d}", "The index rose as Ana Ruiz spoke.", ts(day)))
    return write_snapshot(root, articles, questions, START.isoformat(), (START + timedelta(days=35)).isoformat())


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("browser-report")
    snap = _snapshot(root / "snapshot")
    dirs = [run_eval(snap, agent, root / agent).out_dir for agent in ("uniform", "base-rate", "abstain")]
    out = root / "report.html"
    result = CliRunner().invoke(main, ["eval", "report", *map(str, dirs), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_the_report_of_a_thousand_questions_is_one_file_with_intervals_and_every_question(report):
    page = report.read_text()
    assert page.startswith("<!doctype html>") and "<link" not in page and "src=" not in page  # nothing fetched
    assert page.count("<svg") >= 5  # leaderboard, time, calibration, by category, by source
    assert page.count("95% interval") >= 2 and " to " in page
    assert page.count('<tr><td class="t q" title=') == QUESTIONS  # the per-question table, one row each


@pytest.mark.skipif(chromium() is None, reason="no Chromium on this machine (Debian: `make browser`, "
                                               "or set PASTCAST_CHROMIUM to its executable)")
def test_the_report_renders_in_headless_chromium_without_console_errors(report, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed")
    errors = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), headless=True,
                                    args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                          "--disable-background-networking", "--no-first-run"])
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: errors.append(f"fetched {r.url}") if not r.url.startswith("file:") else None)
            page.goto(report.as_uri(), wait_until="load")
            assert page.locator("svg").count() >= 5
            sizes = page.eval_on_selector_all("svg", "els => els.map(e => e.getBoundingClientRect().width)")
            assert all(w > 300 for w in sizes), sizes  # every chart drawn at a readable width
            assert "95% interval" in page.inner_text("table >> nth=0")
            # sort the questions by the first run's BSS, both ways
            table = page.locator("#questions")
            header = table.locator("thead tr:last-child th").nth(6)
            header.click()
            up = table.locator("tbody tr td:nth-child(7)").evaluate_all(
                "cells => cells.map(c => c.getAttribute('data-v')).filter(v => v !== '').map(Number)")
            header.click()
            down = table.locator("tbody tr td:nth-child(7)").evaluate_all(
                "cells => cells.map(c => c.getAttribute('data-v')).filter(v => v !== '').map(Number)")
            assert up == sorted(up) and down == sorted(down, reverse=True) and len(up) > 0
            shot = tmp_path / "report.png"
            page.screenshot(path=str(shot), full_page=False)
            assert shot.stat().st_size > 10_000
        finally:
            browser.close()
    assert errors == []
