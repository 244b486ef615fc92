"""Article selection for the LLM generator (pastcast.questions.selection): the three modes, the
drop details, the story and day limits, and the ``llm`` screen against the loopback
OpenAI-protocol server (litellm's real client), in several languages."""

import json

import polars as pl
import pytest

from evalkit import article, ts
from openai_server import OpenAIServer, Reply, completion
from pastcast.llm import LLMSettings, load_prompt
from pastcast.questions.llm_generate import SCHEMAS, LLMGenerateConfig, generate_llm
from pastcast.questions.selection import (CUES, CUES_V1, SELECT_MODES, SelectConfig, Verdict, cue_scores,
                                          screen_inputs, select_articles)
from pastcast.schemas import ARTICLES, frame

MODEL = "openai/test-model"

# (language, headline, lead, reports a settled outcome)
PAGES = [
    ("en", "Okafor wins Kestrel Bay mayoral election", "Maria Okafor won the election on Sunday, the office said.", True),
    ("en", "Preview: who could win the cup final?", "Pundits predict a close match; Rovers are expected to win.", False),
    ("de", "Marius Lindvik gewinnt in Willingen", "Der Norweger hat den Wettkampf in Willingen gewonnen.", True),
    ("de", "Wie die Wahl ausgehen könnte", "Eine Analyse vor der Wahl: wer könnte gewinnen?", False),
    ("es", "Brighton goleó 4-0 al Manchester United", "El Brighton venció al United en la Premier League.", True),
    ("fr", "Berne interdit désormais le chlorothalonil", "L'office fédéral a décidé de retirer l'autorisation.", True),
    ("ja", "イオン銀行の社長解任", "イオン銀行は14日、社長を解任する人事を発表した。", True),
]


def _row(i: int, lang: str, title: str, lead: str, day: str = "2026-03-08", cluster: str | None = None) -> dict:
    row = article(f"a{i:03d}", title, lead + " " + "More context follows here. " * 40, ts(day, 9 + i % 10))
    return row | {"language": lang, "dup_cluster": cluster or f"a{i:03d}"}


def _pages() -> pl.DataFrame:
    return frame([_row(i, lang, t, lead) for i, (lang, t, lead, _) in enumerate(PAGES)], ARTICLES)


def test_cue_lists_read_several_languages_and_v1_only_english():
    scored = cue_scores(_pages())
    passed = dict(zip(scored["article_id"], scored["_score"] >= 1.0))
    for i, (lang, title, _, outcome) in enumerate(PAGES):
        assert passed[f"a{i:03d}"] == outcome, (lang, title)
    v1 = cue_scores(_pages(), CUES_V1)
    assert not any(s >= 1.0 for s, (lang, *_) in zip(v1["_score"], PAGES) if lang != "en")
    assert {"en", "de", "es", "fr", "ja"} <= set(CUES)


def test_cue_drops_say_the_score_and_the_cue_words_and_which_list_read_the_page():
    rows = [_row(0, "en", "Preview: who could win the cup final?", "Pundits predict a close match."),
            _row(1, "sv", "Hanna, 18, försvunnen i Uddevalla", "Polisen ber om tips.")]
    selected, drops = select_articles(frame(rows, ARTICLES), SelectConfig(per_day=None))
    assert selected.is_empty()
    detail = {d.item_id: (d.reason, d.detail) for d in drops}
    reason, text = detail["a000"]
    assert reason == "not_outcome_report" and "outcome score" in text and "< 1.0" in text
    assert "preview cues: preview, could, predict" in text
    reason, text = detail["a001"]
    assert reason == "not_outcome_report" and "no cue list for language 'sv'" in text


def test_mode_all_keeps_every_question_source_article_but_one_per_story():
    rows = [_row(i, lang, t, lead) for i, (lang, t, lead, _) in enumerate(PAGES)]
    rows.append(_row(50, "en", "Okafor wins, a syndicated copy", "Same story.", cluster="a000"))
    selected, drops = select_articles(frame(rows, ARTICLES), SelectConfig(mode="all", per_day=None))
    assert selected.height == len(PAGES)
    assert [(d.item_id, d.reason) for d in drops] == [("a050", "cluster_limit")] or \
        [(d.item_id, d.reason) for d in drops] == [("a000", "cluster_limit")]
    assert "went first" in drops[0].detail


def test_unknown_mode_and_llm_mode_without_a_screen_are_errors():
    with pytest.raises(ValueError, match="cues, llm, all"):
        SelectConfig(mode="regex")
    with pytest.raises(ValueError, match="needs a screen"):
        select_articles(_pages(), SelectConfig(mode="llm"))
    assert SELECT_MODES == ("cues", "llm", "all")


class FakeScreen:
    """Says yes to every n-th article; records what it was asked."""

    def __init__(self, every: int = 3):
        self.every, self.calls = every, []

    def __call__(self, rows):
        self.calls.append([r["article_id"] for r in rows])
        return [Verdict(True) if int(r["article_id"][1:]) % self.every == 0
                else Verdict(False, "not_outcome_report", "said no: a feature") for r in rows]


def test_llm_mode_screens_one_copy_per_story_in_waves_until_the_day_is_full():
    rows = [_row(i, "en", f"Story {i}", "Something happened.") for i in range(60)]
    rows += [_row(100 + i, "en", f"Copy of story {i}", "Something happened.", cluster=f"a{i:03d}") for i in range(5)]
    articles = frame(rows, ARTICLES)
    screen = FakeScreen()
    config = SelectConfig(mode="llm", per_day=4)
    selected, drops = select_articles(articles, config, screen=screen, wave=5)
    asked = [a for call in screen.calls for a in call]
    assert len(asked) == len(set(asked))  # never asked twice
    assert selected.height == 4
    assert len(asked) < 60  # stopped once four had passed
    assert all(len(call) <= max(5, config.per_day) for call in screen.calls)
    by = {d.item_id: d for d in drops}
    assert set(by) | set(selected["article_id"]) == set(articles["article_id"])  # each accounted for once
    assert len(by) + selected.height == articles.height
    # screened and dropped: a "no", or a "yes" of the last wave past the day's quota
    assert all(by[a].reason in ("not_outcome_report", "day_limit") for a in asked if a in by)
    assert all("not screened" not in by[a].detail for a in asked if a in by)
    unscreened = [d for d in drops if d.reason == "day_limit" and d.item_id not in asked]
    assert unscreened and all("not screened" in d.detail for d in unscreened)
    assert not set(d.item_id for d in unscreened) & set(asked)
    # copies of a story are never screened: one copy per story is
    copies = [d for d in drops if d.reason == "cluster_limit"]
    assert copies and not {d.item_id for d in copies} & set(asked)


def test_llm_mode_order_is_language_neutral_and_the_same_every_run():
    rows = [_row(i, lang, t, lead) for i, (lang, t, lead, _) in enumerate(PAGES)]
    orders = []
    for _ in range(2):
        screen = FakeScreen(every=1)
        select_articles(frame(rows, ARTICLES), SelectConfig(mode="llm", per_day=None), screen=screen)
        orders.append([a for call in screen.calls for a in call])
    assert orders[0] == orders[1] and len(orders[0]) == len(PAGES)


def test_screen_inputs_are_the_headline_and_a_bounded_lead():
    row = _row(0, "de", "Marius Lindvik gewinnt in Willingen", "Der Norweger hat gewonnen.")
    inputs = screen_inputs(row, SelectConfig(screen_chars=120))
    assert inputs["title"] == row["title"] and len(inputs["lead"]) <= 120
    assert inputs["lead"].startswith("Der Norweger") and inputs["article_date"] == "2026-03-08"
    messages = load_prompt("article_screen").messages(inputs)
    assert "any language" in messages[0]["content"] and "Marius Lindvik" in messages[1]["content"]
    assert load_prompt("article_screen").schema in SCHEMAS


# -- the llm mode against the loopback server: litellm's own client ---------------------------

def _settings(server, tmp_path, **kw) -> LLMSettings:
    kw = {"concurrency": 4, "backoff_base": 0.01, "backoff_cap": 1.0, "timeout": 5.0,
          "cache_dir": tmp_path / "cache", **kw}
    return LLMSettings(model=MODEL, api_base=server.url, api_key="test-key", **kw)


def _title(body: dict) -> str:
    return body["messages"][1]["content"].split("Title: ", 1)[1].split("\n", 1)[0]


WINNERS = {"Okafor wins Kestrel Bay mayoral election": "Maria Okafor",
           "Marius Lindvik gewinnt in Willingen": "Marius Lindvik",
           "Brighton goleó 4-0 al Manchester United": "Brighton"}


def server_script(screened: list):
    def reply(body: dict, n: int) -> Reply:
        system = body["messages"][0]["content"]
        title = _title(body)
        if "You sort news articles" in system:  # the screen
            screened.append(body)
            yes = title in WINNERS
            return completion(json.dumps({"reports_outcome": yes, "why": "a result" if yes else "a preview, no result"}),
                              60, 12)
        answer = WINNERS.get(title, "nobody")
        question = {"title": "Who will win the contest in March 2026?", "background": "A contest is held in March.",
                    "resolution_criteria": "The winner named by the organisers.", "answer": answer,
                    "answer_aliases": [], "answer_type": "person", "resolution_date": "2026-03-08"}
        if "You review candidate questions" in system:
            return completion(json.dumps({"keep": True, "best": 0, **question, "rewrote": [], "reason": ""}), 100, 20)
        return completion(json.dumps({"reports_outcome": True, "questions": [{**question, "evidence": ""}]}), 100, 20)

    return reply


def _lang_articles() -> pl.DataFrame:
    rows = [_row(i, lang, t, lead) for i, (lang, t, lead, _) in enumerate(PAGES)]
    for r in rows:  # the answers must appear in the article
        r["text"] = f"{WINNERS.get(r['title'], '')} " + r["text"]
    return frame(rows, ARTICLES)


def test_llm_screen_through_litellm_drops_with_the_models_reason_and_is_cached(tmp_path):
    screened: list = []
    articles = _lang_articles()
    config = LLMGenerateConfig(select=SelectConfig(mode="llm", per_day=None, screen_chars=200))
    with OpenAIServer(server_script(screened)) as server:
        first = generate_llm(articles, _settings(server, tmp_path), config)
        requests_first = len(server.requests)
        again = generate_llm(articles, _settings(server, tmp_path), config)
        assert len(server.requests) == requests_first  # the rerun is answered from the cache
    assert len(screened) == articles.height  # one screen per article, any language
    for body in screened:  # headline and a bounded lead, not the article
        assert len(body["messages"][1]["content"]) < 400 and body["max_tokens"] == load_prompt("article_screen").max_tokens
    assert first.selected == len(WINNERS)
    assert set(first.questions["answer"]) == set(WINNERS.values())  # English, German and Spanish pages
    drops = first.drops.filter(pl.col("reason") == "not_outcome_report")
    assert drops.height == articles.height - len(WINNERS)
    assert all("said no: a preview, no result" in d and "article_screen@" in d for d in drops["detail"])
    ref = load_prompt("article_screen").ref
    assert (first.ledger["prompt"] == ref).sum() == articles.height
    assert set(again.ledger["status"]) == {"cached"} and again.questions.equals(first.questions)


def test_llm_screen_under_a_spent_budget_accounts_for_every_article(tmp_path):
    screened: list = []
    articles = _lang_articles()
    config = LLMGenerateConfig(select=SelectConfig(mode="llm", per_day=None))
    with OpenAIServer(server_script(screened)) as server:
        run = generate_llm(articles, _settings(server, tmp_path, concurrency=1, max_tokens=100), config)
    assert run.questions.height + run.drops.height == articles.height
    reasons = set(run.drops["reason"])
    assert "budget_exhausted" in reasons
    assert run.usage.tokens <= 100 + 2 * 72  # at most the requests in flight past the budget


def test_cli_select_option(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from pastcast.cli import main

    folder = tmp_path / "dedup"
    folder.mkdir()
    _lang_articles().write_parquet(folder / "articles.parquet")
    monkeypatch.setenv("PASTCAST_LLM_API_KEY", "test-key")
    monkeypatch.setenv("PASTCAST_CACHE", str(tmp_path / "cache"))
    screened: list = []
    with OpenAIServer(server_script(screened)) as server:
        out = {}
        for mode in ("llm", "all"):
            args = ["questions", "generate", "--articles", str(folder), "--out", str(tmp_path / mode),
                    "--model", MODEL, "--api-base", server.url, "--max-tokens", "100000", "--select", mode]
            out[mode] = CliRunner().invoke(main, args)
            assert out[mode].exit_code == 0, out[mode].output
    assert f"{len(WINNERS)} articles sent" in out["llm"].output
    assert f"{len(PAGES)} articles sent" in out["all"].output
    assert len(screened) == len(PAGES)  # only the llm run screened
    bad = CliRunner().invoke(main, ["questions", "generate", "--articles", str(folder), "--out", str(tmp_path / "x"),
                                    "--select", "regex"])
    assert bad.exit_code != 0 and "regex" in bad.output


def test_the_generation_prompt_says_which_language_questions_are_written_in():
    system = " ".join(load_prompt("question_generate").system.split())
    assert "any language" in system and "in English" in system
    assert "exactly as the article states it" in system and "answer_aliases" in system
