"""Archive pages are kept as background: they neither stretch the window nor source questions; pages
dated only by their crawl are served from it but source no question."""

from datetime import date, datetime, timezone

from evalkit import article
from pastcast.search.visibility import news_window
from pastcast.questions.generate import generate_questions
from pastcast.schemas import ARTICLES, frame

CRAWL = datetime(2026, 2, 14, 6, tzinfo=timezone.utc)


def _article(aid, published, crawled=CRAWL, text="The council approved the harbour budget."):
    row = article(aid, f"Story {aid}", text, published)
    row["crawled_at"] = crawled
    return row


def test_the_window_starts_at_the_first_current_article_not_the_oldest_archive_page():
    rows = [_article("old", datetime(2012, 5, 10, tzinfo=timezone.utc)),
            _article("a", datetime(2026, 2, 12, 9, tzinfo=timezone.utc)),
            _article("b", datetime(2026, 2, 13, 9, tzinfo=timezone.utc))]
    assert news_window(frame(rows, ARTICLES)) == (date(2026, 2, 12), date(2026, 2, 13))
    # only archive pages: the window is theirs, rather than none
    assert news_window(frame(rows[:1], ARTICLES)) == (date(2012, 5, 10), date(2012, 5, 10))
    assert news_window(frame([], ARTICLES)) is None


def test_archive_pages_are_no_question_source():
    text = ("Lina Okafor won the Kestrel Bay mayoral election on Sunday, the returning officer said. "
            "Okafor took 52 percent of the vote, ahead of Ana Ruiz and Tomas Berg. ") * 3
    rows = [_article("old", datetime(2019, 3, 3, 9, tzinfo=timezone.utc), text=text)]
    run = generate_questions(frame(rows, ARTICLES))
    assert run.articles == 1 and run.questions.height == 0
    assert run.drops.select("item_id", "reason").rows() == [("old", "background_only")]
    assert "archive page: published 2019-03-03, crawled 2026-02-14" in run.drops["detail"][0]
    fresh = [_article("new", datetime(2026, 2, 13, 9, tzinfo=timezone.utc), text=text)]
    assert generate_questions(frame(fresh, ARTICLES)).articles == 1


def test_archive_pages_are_not_served_by_search(tmp_path):
    from pastcast.search.index import ArticleIndex

    rows = [_article("old", datetime(2012, 5, 10, tzinfo=timezone.utc),
                     text="Acme names Okafor chief executive after a long search."),
            _article("new", datetime(2026, 2, 13, 9, tzinfo=timezone.utc),
                     text="Acme names Okafor chief executive, the board said on Friday.")]
    index = ArticleIndex.build(frame(rows, ARTICLES), tmp_path / "index")
    # the archive page's text is its crawl-time text: never shown from its stated date
    assert [h.article_id for h in index.search("Acme Okafor chief executive", date(2026, 2, 1))] == []
    assert [h.article_id for h in index.search("Acme Okafor chief executive", date(2026, 2, 14))] == ["new"]


ELECTION = ("Lina Okafor won the Kestrel Bay mayoral election on Sunday, the returning officer said. "
            "Okafor took 52 percent of the vote, ahead of Ana Ruiz and Tomas Berg. ") * 3


def _crawl_dated(aid, crawled, text):
    """A page with no date of its own, kept dated by its crawl (curate.dating.crawl_date)."""
    row = _article(aid, crawled, crawled=crawled, text=text)
    row["date_source"] = "crawl"
    return row


def test_pages_dated_only_by_their_crawl_are_no_question_source():
    crawled = datetime(2026, 2, 13, 9, tzinfo=timezone.utc)
    rows = [_crawl_dated("undated", crawled, ELECTION)]
    run = generate_questions(frame(rows, ARTICLES))
    assert run.articles == 1 and run.questions.height == 0
    assert run.drops.select("item_id", "reason").rows() == [("undated", "background_only")]
    assert run.drops["detail"][0].endswith("dated only by its crawl")
    dated = [{**rows[0], "date_source": "meta"}]
    assert generate_questions(frame(dated, ARTICLES)).articles == 1


def test_pages_dated_only_by_their_crawl_are_served_from_their_crawl_on(tmp_path):
    from pastcast.search.index import ArticleIndex

    crawled = datetime(2026, 2, 13, 9, tzinfo=timezone.utc)
    rows = [_crawl_dated("undated", crawled, "Acme names Okafor chief executive, the board said.")]
    index = ArticleIndex.build(frame(rows, ARTICLES), tmp_path / "index")
    assert [h.article_id for h in index.search("Acme Okafor chief executive", date(2026, 2, 12))] == []
    assert [h.article_id for h in index.search("Acme Okafor chief executive", date(2026, 2, 13))] == ["undated"]


def test_the_llm_selector_called_directly_also_leaves_out_what_sources_no_question():
    from pastcast.questions.llm_generate import select_articles

    crawled = datetime(2026, 2, 13, 9, tzinfo=timezone.utc)
    rows = [_crawl_dated("undated", crawled, ELECTION),
            _article("old", datetime(2019, 3, 3, 9, tzinfo=timezone.utc), text=ELECTION)]
    chosen, drops = select_articles(frame(rows, ARTICLES))
    assert chosen.height == 0
    assert {d.item_id: d.reason for d in drops} == {"undated": "background_only", "old": "background_only"}
    detail = {d.item_id: d.detail for d in drops}
    assert detail["undated"].endswith("dated only by its crawl") and "archive page" in detail["old"]
