"""``pastcast ingest`` (WARC files to dated articles) and ``pastcast dedup`` (one article per
story), over ``pastcast.curate``."""

from __future__ import annotations

import click

from pastcast.cli._shared import ingest_progress, out, progress, reason_table, user_errors
from pastcast.curate.drop_policy import MIN_WORD_UNITS, UNDATED, UNDATED_CHOICES


@click.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Output folder: articles.parquet, drops.parquet (and parts/ for resuming).")
@click.option("--workers", type=int, default=0, show_default=True,
              help="Extraction processes; 0 means one per core.")
@click.option("--base-url", default=None,
              help="Prefix for the paths of a warc.paths.gz listing (default: the listing's host, "
                   "https://data.commoncrawl.org for a local listing).")
@click.option("--spool", "spool_dir", default=None, type=click.Path(file_okay=False),
              help="Where remote files are downloaded to (default OUT/spool); each is deleted "
                   "once ingested.")
@click.option("--language", "languages", multiple=True,
              help="Keep only articles in this language (ISO 639-1, repeatable).")
@click.option("--min-words", default=MIN_WORD_UNITS, show_default=True,
              help="Pages whose main text is shorter are dropped (too_short). Counted in word "
                   "units: words; Chinese and Japanese two characters a word.")
@click.option("--max-age-days", type=click.IntRange(min=0), default=None,
              help="Drop pages dated more than this many days before their crawl (too_old). "
                   "Default: keep them with their true date, never served to agents.")
@click.option("--undated", type=click.Choice(UNDATED_CHOICES), default=UNDATED, show_default=True,
              help="A page with no plausible date of its own: 'crawl' keeps it dated by its crawl "
                   "(date_source 'crawl'; searchable from then on, never a question's source), "
                   "'drop' drops it (no_date, implausible_date).")
def ingest(inputs: tuple[str, ...], out_dir: str, workers: int, base_url: str | None,
           spool_dir: str | None, languages: tuple[str, ...], min_words: int,
           max_age_days: int | None, undated: str) -> None:
    """Read WARC files into dated articles.

    \b
    INPUT is a WARC file, a glob ('crawl/*.warc.gz'), an http(s) URL of a WARC file, or a
    Common Crawl listing (a URL or file ending in .paths.gz), e.g.
      pastcast ingest https://data.commoncrawl.org/crawl-data/CC-NEWS/2026/03/warc.paths.gz --out out/
    Writes OUT/articles.parquet and OUT/drops.parquet. A rerun skips finished files.
    """
    if workers != 1:
        from pastcast.curate.workers import start_early

        start_early()  # warms up while this process imports the rest
    from pastcast.curate.extract import ExtractConfig
    from pastcast.curate.ingest import ingest_inputs

    config = ExtractConfig(min_words=min_words, languages=languages, max_age_days=max_age_days,
                           undated=undated)
    with user_errors(FileNotFoundError, ValueError, OSError), progress() as bar:
        result = ingest_inputs(list(inputs), out_dir, workers=workers or None, config=config,
                               base_url=base_url, spool_dir=spool_dir, on_progress=ingest_progress(bar))
    out.print(reason_table("dropped, by stage/reason", result.drops_by_reason))
    rate = result.articles / max(result.seconds, 1e-9)
    failed = f", {result.files_failed} could not be read (read again next run)" if result.files_failed else ""
    out.print(f"{result.files} files ({result.files_skipped} already done{failed}), {result.records:,} records, "
              f"{result.articles:,} articles in {result.seconds:.1f} s ({rate:,.1f} articles/s)\n"
              f"articles: {result.articles_path}\ndrops:    {result.drops_path}")


@click.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Output folder: articles.parquet (kept) and drops.parquet (removed copies).")
@click.option("--state", "state_dir", default=None, type=click.Path(file_okay=False),
              help="Folder of the persistent index: later runs deduplicate against everything "
                   "it holds (incremental). Without it, the inputs are only compared with each other.")
@click.option("--jaccard", default=0.8, show_default=True,
              help="Near copies: estimated Jaccard similarity of 5-word shingles at least this ...")
@click.option("--containment", default=0.8, show_default=True,
              help="... or this share of the shorter text's shingles in the longer one.")
@click.option("--num-perm", default=128, show_default=True, help="MinHash permutations.")
@click.option("--bands", default=32, show_default=True, help="LSH bands (num-perm / bands rows each).")
@click.option("--shingle-words", default=5, show_default=True, help="Words per shingle.")
def dedup(inputs: tuple[str, ...], out_dir: str, state_dir: str | None, jaccard: float,
          containment: float, num_perm: int, bands: int, shingle_words: int) -> None:
    """Remove duplicate articles: same URL, same text, near copies; the earliest copy stays.

    \b
    INPUT is a folder written by `pastcast ingest` (its articles.parquet) or a Parquet file.
    Writes OUT/articles.parquet (kept, with dup_cluster, dup_count, dup_domains) and
    OUT/drops.parquet (every removed copy: kept=<article_id> cluster=<id> in its detail), e.g.
      pastcast dedup ingest/2026-03-01 --out dedup/2026-03-01 --state dedup/index
    """
    from pastcast.curate.dedup import DedupConfig
    from pastcast.curate.dedup_files import dedup_files
    from pastcast.curate.minhash import MinHashConfig

    with user_errors():
        config = DedupConfig(minhash=MinHashConfig(num_perm=num_perm, bands=bands, shingle_words=shingle_words),
                             jaccard=jaccard, containment=containment)
        with progress() as bar:
            task = bar.add_task("deduplicating", total=None)

            def update(p: dict) -> None:
                bar.update(task, completed=p["articles"], total=p["total"],
                           description=f"{p['articles']:,} articles, {p['kept']:,} kept")

            run = dedup_files(list(inputs), out_dir, state_dir, config, on_progress=update)
    out.print(reason_table("removed copies, by reason", run.counts.by_reason))
    index = f"; index: {run.indexed_before:,} -> {run.indexed_after:,} articles" if state_dir else ""
    out.print(f"{run.counts.articles:,} articles in, {run.counts.kept:,} kept in {run.seconds:.1f} s{index}\n"
              f"articles: {run.articles_path}\ndrops:    {run.drops_path}")

