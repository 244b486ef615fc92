"""Question generation from articles, either generator, with one output layout.

``generate_questions`` runs the extractive (offline) or the LLM generator over dated articles,
optionally only for the articles of some days (a daily partition: earlier articles still give
background); ``write_generation`` writes ``questions.parquet``, ``drops.parquet``,
``llm_ledger.parquet`` (LLM runs) and ``generate.json`` (counts, usage, settings) atomically.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import polars as pl

from pastcast.drops import Drop, counts_by_reason, drops_frame
from pastcast.io import MANIFEST, write_json, write_parquet
from pastcast.questions.extractive import STAGE, GenerateConfig, generate_extractive
from pastcast.search.visibility import CRAWL_DATED, news_window, question_source
from pastcast.store import read_table

GENERATORS = ("extractive", "llm")


@dataclass
class GenerationRun:
    generator: str
    questions: pl.DataFrame
    drops: pl.DataFrame
    articles: int  # articles considered (those of the chosen days)
    selected: int | None = None  # sent to the LLM (LLM runs)
    usage: dict | None = None  # LLM requests, cache hits, tokens, cost (LLM runs)
    ledger: pl.DataFrame | None = None
    settings: dict = field(default_factory=dict)

    def summary(self) -> dict:
        per_article = self.questions.height / self.articles if self.articles else 0.0
        return {"generator": self.generator, "articles": self.articles, "selected_for_llm": self.selected,
                "questions": self.questions.height, "questions_per_article": round(per_article, 4),
                "drops_by_reason": counts_by_reason(self.drops), "llm": self.usage, "settings": self.settings}


def read_articles(source: str | Path) -> pl.DataFrame:
    """Articles from a folder written by ``pastcast ingest``/``dedup``, a snapshot version, or a file."""
    path = Path(source)
    if (path / MANIFEST).is_file():
        return read_table(path, "articles")
    path = path / "articles.parquet" if path.is_dir() else path
    if not path.is_file():
        raise FileNotFoundError(f"no articles at {path} (expected a folder with articles.parquet, a snapshot "
                                "version, or a Parquet file)")
    try:
        articles = pl.read_parquet(path)
    except (pl.exceptions.ComputeError, OSError) as exc:  # a snapshot's LATEST pointer, a damaged file
        raise ValueError(f"{path} is not a Parquet file of articles ({str(exc).splitlines()[0]}); give a folder "
                         "with articles.parquet, a snapshot version, or a Parquet file") from exc
    missing = [c for c in ("article_id", "title", "text", "published_at") if c not in articles.columns]
    if missing:  # a questions table given for the articles, say
        raise ValueError(f"{path} is not a table of articles: no column {', '.join(missing)}")
    return articles


def _days(articles: pl.DataFrame, days: Iterable[date] | None) -> pl.Series:
    on_day = articles["published_at"].dt.date()
    return on_day.is_in(list(days)) if days is not None else on_day.is_not_null()


def background_only(articles: pl.DataFrame) -> list[Drop]:
    """``background_only`` drops for articles that may give background but source no question
    (not ``question_source``): archive pages and pages dated only by their crawl."""
    crawl_dated = (pl.col("date_source") == CRAWL_DATED) if "date_source" in articles.columns else pl.lit(False)
    detail = (pl.when(crawl_dated).then(pl.format("{} dated only by its crawl", pl.col("url")))
              .otherwise(pl.format("{} archive page: published {}, crawled {}", pl.col("url"),
                                   pl.col("published_at").dt.date(), pl.col("crawled_at").dt.date())))
    return [Drop(a, "article", STAGE, "background_only", d or "")
            for a, d in articles.select("article_id", detail).rows()]


def generate_questions(articles: pl.DataFrame, generator: str = "extractive", *,
                       days: Iterable[date] | None = None, article_ids: set[str] | None = None,
                       horizon_days: int = 28, window_start: date | None = None, llm_settings=None,
                       llm_config=None, progress: Callable[[int, int], None] | None = None) -> GenerationRun:
    """Candidate questions from the articles published on ``days``, or from ``article_ids``
    (e.g. a crawl day's arrivals), or from all of them, leaving out archive pages (crawled over
    ``CURRENT_NEWS_DAYS`` after publication) and pages dated only by their crawl
    (``pastcast.search.visibility.question_source``): those give background only and are
    ``background_only`` drops; every article may give background."""
    if generator not in GENERATORS:
        raise ValueError(f"unknown generator {generator!r}; use one of {GENERATORS}")
    days = sorted(set(days)) if days is not None else None
    if article_ids is not None:
        chosen = articles["article_id"].is_in(list(article_ids))
    else:
        chosen = _days(articles, days)
    n = int(chosen.sum())
    # archive pages and pages dated only by their crawl: background only, each a drop
    source = articles.select(question_source(articles.columns)).to_series()
    background = drops_frame(background_only(articles.filter(chosen & ~source)))
    chosen = chosen & source
    if window_start is None and articles.height:
        window = news_window(articles)
        window_start = window[0] if window else None
    if generator == "extractive":
        config = GenerateConfig(horizon_days=horizon_days, window_start=window_start)
        # only these days' articles are read for outcomes; every article may give background
        only = set(articles.filter(chosen)["article_id"])
        questions, drops = generate_extractive(articles, config, only=only)
        return GenerationRun("extractive", questions, pl.concat([background, drops]), n,
                             settings={"horizon_days": horizon_days})
    from pastcast.questions.llm_generate import LLMGenerateConfig, generate_llm

    if llm_settings is None:
        raise ValueError("the LLM generator needs a model: pass --model or set PASTCAST_LLM_MODEL")
    config = llm_config or LLMGenerateConfig(horizon_days=horizon_days, window_start=window_start)
    result = generate_llm(articles.filter(chosen), llm_settings, config, progress=progress)
    return GenerationRun("llm", result.questions, pl.concat([background, result.drops]), n, result.selected,
                         result.usage.as_dict(),
                         result.ledger, {"llm": llm_settings.public(), "horizon_days": config.horizon_days,
                                         "per_day": config.select.per_day, "select": config.select.mode,
                                         "max_questions": config.max_questions})


def write_generation(run: GenerationRun, out_dir: str | Path) -> dict[str, Path]:
    out_dir = Path(out_dir)
    paths = {"questions": write_parquet(run.questions, out_dir / "questions.parquet"),
             "drops": write_parquet(run.drops, out_dir / "drops.parquet")}
    if run.ledger is not None:
        paths["llm_ledger"] = write_parquet(run.ledger, out_dir / "llm_ledger.parquet")
    paths["summary"] = write_json(run.summary(), out_dir / "generate.json")
    return paths
