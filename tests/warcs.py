"""Test helpers: real WARC files written with warcio, paths to the bundled and shared data."""

from __future__ import annotations

import shutil
from datetime import datetime, timezone
from io import BytesIO
from pathlib import Path

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter


ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "corpora" / "sample"
SHARED = ROOT.parent / "shared" / "data"

needs_shared = pytest.mark.skipif(
    not SHARED.is_dir(), reason=f"real third-party data not present at {SHARED} (fresh clone)")


def article_html(title: str, body: str, head: str = "", byline: str = "") -> str:
    paragraphs = "".join(f"<p>{p}</p>" for p in body.split("\n\n"))
    return (f"<html><head><title>{title}</title>{head}</head><body>"
            f"<nav><a href='/'>Home</a> <a href='/news'>News</a> <a href='/sport'>Sport</a></nav>"
            f"<article><h1>{title}</h1><div class='byline'>{byline}</div>{paragraphs}</article>"
            f"<footer>Copyright Example Media. <a href='/about'>About</a></footer></body></html>")


def write_warc(path: Path, records: list[dict]) -> Path:
    """records: {url, html | body, status='200 OK', content_type, date (datetime)}."""
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=str(path).endswith(".gz"))
        for r in records:
            body = r["html"].encode(r.get("encoding", "utf-8")) if "html" in r else r["body"]
            headers = StatusAndHeaders(r.get("status", "200 OK"), [
                ("Content-Type", r.get("content_type", "text/html; charset=utf-8")),
                ("Content-Length", str(len(body)))], protocol="HTTP/1.1")
            date = r.get("date", datetime(2026, 2, 1, 12, tzinfo=timezone.utc))
            record = writer.create_warc_record(
                r["url"], "response", payload=BytesIO(body), http_headers=headers,
                warc_headers_dict={"WARC-Date": date.strftime("%Y-%m-%dT%H:%M:%SZ")})
            writer.write_record(record)
    return path


LOREM = ("The council met on Tuesday to discuss the budget for the coming year. Members argued "
         "about road repairs, the new library and the cost of heating public buildings. "
         "Several residents spoke during the public session, asking for more bus routes and "
         "better lighting in the old town. The mayor promised a decision before the spring. ")


# -- small corpora of whole crawl days, cut from the sample -------------------------------

def make_corpus(root: Path, days: list) -> Path:
    """The sample corpus's dumps and its WARC files of ``days`` (one file per crawl day)."""
    corpus = root / "corpus"
    for sub in ("markets", "social"):
        shutil.copytree(SAMPLE / sub, corpus / sub, dirs_exist_ok=True)
    (corpus / "warc").mkdir(parents=True, exist_ok=True)
    for day in days:
        add_day(corpus, day)
    return corpus


def add_day(corpus: Path, day) -> Path:
    (source,) = SAMPLE.joinpath("warc").glob(f"CC-NEWS-{day:%Y%m%d}*.warc.gz")
    return Path(shutil.copy2(source, corpus / "warc" / source.name))
