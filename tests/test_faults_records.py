"""One bad record never aborts an import, no decompression is unbounded, and an empty input is
a drop (issue 36, items 3, 4 and 8).

- Every reader turns a field of the wrong type, out of range or of the wrong shape into a drop
  naming file, record (line of a line-delimited dump, index in a JSON array) and field, and
  reads the next record: the cases the issue found, then every field of every format given a
  list, an object, a number, 1e300, -1e300, NaN-like text, null and a boolean.
- A line, an HTTP body or a whole-JSON file that decompresses past its cap is a ``too_large``
  drop and the rest of the file is read, in bounded memory (measured in a child process).
- A zero-byte input of any format is an ``empty_file`` drop, which fails ``inputs_read_whole``.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import textwrap
import zlib
from datetime import date
from io import BytesIO
from pathlib import Path

import polars as pl
import pytest
import zstandard
from click.testing import CliRunner
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from pastcast import pipeline
from pastcast.cli import main
from pastcast.imports import run_markets, run_social
from pastcast.snapshot_checks import publish_if_sound
from pastcast.sources.jsonfiles import iter_lines
from pastcast.sources.warc import HtmlPage, iter_html_pages
from pastcast.store import read_table
from warcs import make_corpus

FIXTURES = Path(__file__).parent / "fixtures" / "markets"
T0 = 1767225600  # 2026-01-01, epoch seconds
GiB = 1 << 30


# ------------------------------------------------------------------ one record of each format

def _reddit(i: int) -> dict:
    return {"id": f"c{i}", "subreddit": "worldnews", "author": "someone", "created_utc": T0 + i,
            "body": f"comment number {i}", "score": 3, "parent_id": "t3_x", "permalink": f"/r/worldnews/c{i}"}


def _hn(i: int) -> dict:
    return {"id": 100 + i, "type": "comment", "by": "someone", "time": T0 + i, "text": f"comment <i>{i}</i>",
            "parent": 7, "score": 2}


def _bluesky(i: int) -> dict:
    return {"uri": f"at://did:plc:abc/app.bsky.feed.post/3k{i}", "cid": "bafy",
            "value": {"$type": "app.bsky.feed.post", "text": f"post number {i}",
                      "createdAt": "2026-01-01T00:00:00Z"}}


def _fixture_list(name: str, key: str | None = None) -> list[dict]:
    doc = json.loads((FIXTURES / name).read_text())
    return doc[key] if key else doc


def _forecastbench(i: int) -> dict:
    return {"id": f"q{i}", "source": "manifold", "question": f"Will the bridge {i} open in 2026?",
            "background": "A bridge.", "url": f"https://manifold.markets/x/{i}",
            "freeze_datetime": "2026-01-01T00:00:00Z", "freeze_datetime_value": 0.4,
            "market_info_open_datetime": "2025-12-01T00:00:00Z",
            "market_info_close_datetime": "2026-06-01T00:00:00Z", "resolution_dates": "N/A"}


# format -> (kind, records: the first one is broken, a few more kept; file name, how the file holds them)
FORMATS = {
    "reddit": ("social", [_reddit(0), _reddit(1)], "reddit.ndjson", "lines"),
    "hn": ("social", [_hn(0), _hn(1)], "hn.jsonl", "lines"),
    "bluesky": ("social", [_bluesky(0), _bluesky(1)], "bluesky.ndjson", "lines"),
    "manifold": ("markets", _fixture_list("manifold/markets_lite.json")[:4], "manifold.json", "list"),
    "polymarket": ("markets", _fixture_list("polymarket/gamma_markets.json")[:4], "polymarket.json", "list"),
    "kalshi": ("markets", _fixture_list("kalshi/markets_page.json", "markets")[:4], "kalshi.json", "list"),
    "metaculus": ("markets", _fixture_list("metaculus/posts_list.json")[:4], "metaculus.json", "list"),
    "forecastbench": ("markets", [_forecastbench(0), _forecastbench(1)], "forecastbench.json", "set"),
}


def _write(folder: Path, fmt: str, records: list) -> Path:
    _, _, name, shape = FORMATS[fmt]
    path = folder / name
    folder.mkdir(parents=True, exist_ok=True)
    if shape == "lines":
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    elif shape == "set":
        path.write_text(json.dumps({"forecast_due_date": "2026-01-01", "questions": records}))
    else:
        path.write_text(json.dumps(records))
    return path


def _import(fmt: str, path: Path, out: Path) -> tuple[set[str], pl.DataFrame]:
    """(ids of the rows kept, drops) of one format's import of ``path``, every table written."""
    kind = FORMATS[fmt][0]
    if kind == "social":
        result = run_social({fmt: [path]}, {t: out / f"{t}.parquet" for t in ("posts", "drops")})
        ids = set(pl.read_parquet(result.paths["posts"])["post_id"])
    else:
        result = run_markets({fmt: [path]}, {t: out / f"{t}.parquet" for t in ("markets", "market_prices", "drops")})
        ids = set(pl.read_parquet(result.paths["markets"])["market_id"])
        pl.read_parquet(result.paths["market_prices"])
    return ids, pl.read_parquet(result.paths["drops"])


# ------------------------------------------------------------------ the cases the issue found

LOCATOR = {"lines": "line 1", "list": "item 0", "set": "question #0"}
NAMED = [  # (format, path of the field in the first record, bad value, the field a drop names)
    ("reddit", ["created_utc"], 1e300, "created_utc"),
    ("reddit", ["subreddit"], ["worldnews", "news"], "subreddit"),
    ("hn", ["time"], 1e300, "time"),
    ("bluesky", ["value", "text"], 12345, "text"),
    ("manifold", ["url"], ["https://a", "https://b"], "url"),
    ("polymarket", ["endDate"], 1e300, "close_at"),  # endDate is the row's close time
    ("kalshi", ["close_time"], 1e300, "close_at"),
    ("metaculus", ["question", "actual_close_time"], -1e300, "close_at"),
    ("forecastbench", ["market_info_open_datetime"], 1e300, "market_info_open_datetime"),
]


def _set(record: dict, keys: list[str], value) -> dict:
    record = copy.deepcopy(record)
    target = record
    for key in keys[:-1]:
        target = target[key]
    target[keys[-1]] = value
    return record


@pytest.mark.parametrize("fmt, keys, value, field", NAMED, ids=lambda v: v if isinstance(v, str) else None)
def test_a_bad_field_is_a_drop_naming_file_record_and_field_and_the_next_record_is_kept(
        tmp_path, fmt, keys, value, field):
    kind, records, name, shape = FORMATS[fmt]
    kept_without, _ = _import(fmt, _write(tmp_path / "clean", fmt, records[1:]), tmp_path / "clean-out")
    path = _write(tmp_path / "in", fmt, [_set(records[0], keys, value), *records[1:]])
    out = tmp_path / "out"
    # the command as a user runs it: exit 0, no traceback
    result = CliRunner().invoke(main, [kind, "import", "--format", fmt, str(path), "--out", str(out)])
    assert result.exit_code == 0 and result.exception is None, result.output
    table, key = ("posts", "post_id") if kind == "social" else ("markets", "market_id")
    kept = set(pl.read_parquet(out / f"{table}.parquet")[key])
    assert kept_without <= kept  # every other record still reaches its table
    drops = pl.read_parquet(out / "drops.parquet")
    named = drops.filter(pl.col("detail").str.contains(name, literal=True)
                         & pl.col("detail").str.contains(LOCATOR[shape], literal=True)
                         & pl.col("detail").str.contains(field, literal=True))
    assert named.height >= 1, drops.to_dicts()


# ------------------------------------------------------------------ every field, every bad value

BAD_VALUES = [["a", 1], {"a": 1}, 12345, 1e300, -1e300, "NaN", "-Infinity", None, True]


def _fields(record: dict) -> list[list[str]]:
    """Each top-level field, and each field of a nested record (a post's value, a question)."""
    paths = [[k] for k in record]
    for key in ("value", "question"):
        if isinstance(record.get(key), dict):
            paths += [[key, k] for k in record[key]]
    return paths


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_any_bad_value_in_any_field_of_any_format_never_stops_the_import(tmp_path, fmt):
    _, records, _, _ = FORMATS[fmt]
    kept_without, _ = _import(fmt, _write(tmp_path / "clean", fmt, records[1:]), tmp_path / "clean-out")
    assert kept_without  # the other records make rows
    tried = 0
    for keys in _fields(records[0]):
        for value in BAD_VALUES:
            folder = tmp_path / f"case{tried}"
            path = _write(folder, fmt, [_set(records[0], keys, value), *records[1:]])
            kept, drops = _import(fmt, path, folder / "out")  # raises on a lost record or a bad row
            assert kept_without <= kept, (keys, value)
            assert drops.filter(pl.col("reason") == "unreadable_file").is_empty(), (keys, value)
            tried += 1
    assert tried >= 9 * 4


# ------------------------------------------------------------------ caps on decompression

def _lines_around(path: Path, writer, before: list[dict], huge: int, after: list[dict]) -> Path:
    """``before`` lines, one comment of ``huge`` bytes, ``after`` lines, through ``writer`` (a
    compressor object) a megabyte at a time: a few kilobytes on disk."""
    parts = [writer.compress("".join(json.dumps(r) + "\n" for r in before).encode()),
             writer.compress(b'{"id": "huge", "created_utc": 1767225600, "body": "')]
    block = b"x" * (1 << 20)
    for _ in range(huge >> 20):
        parts.append(writer.compress(block))
    parts.append(writer.compress(b'"}\n' + "".join(json.dumps(r) + "\n" for r in after).encode()))
    parts.append(writer.flush())
    path.write_bytes(b"".join(parts))
    return path


def _zstd_lines(path: Path, before: list[dict], huge: int, after: list[dict]) -> Path:
    return _lines_around(path, zstandard.ZstdCompressor(level=3).compressobj(), before, huge, after)


def _gzip_lines(path: Path, before: list[dict], huge: int, after: list[dict]) -> Path:
    return _lines_around(path, zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS), before, huge, after)


@pytest.mark.parametrize("write", [_zstd_lines, _gzip_lines], ids=["zst", "gz"])
def test_a_line_past_the_record_cap_is_too_large_and_the_lines_after_it_are_kept(tmp_path, monkeypatch, write):
    monkeypatch.setenv("PASTCAST_MAX_RECORD_BYTES", str(1 << 20))
    suffix = ".ndjson.zst" if write is _zstd_lines else ".ndjson.gz"
    path = write(tmp_path / f"reddit{suffix}", [_reddit(0)], 8 << 20, [_reddit(2), _reddit(3)])
    kept, drops = _import("reddit", path, tmp_path / "out")
    assert kept == {"reddit:t1_c0", "reddit:t1_c2", "reddit:t1_c3"}
    (detail,) = drops.filter(pl.col("reason") == "too_large")["detail"]
    assert path.name in detail and "line 2" in detail and "PASTCAST_MAX_RECORD_BYTES" in detail
    assert drops.height == 1


def test_the_line_reader_gives_each_line_once_across_chunks_and_blank_lines(tmp_path, monkeypatch):
    monkeypatch.setenv("PASTCAST_MAX_RECORD_BYTES", "1000")
    lines = [("a" * n) for n in (1, 999, 1000, 1001, 5, 300_000, 2)] + ["", "  ", "last-without-newline"]
    path = tmp_path / "x.ndjson.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress("\n".join(lines).encode()))
    got = list(iter_lines(path))
    assert [n for n, _ in got] == [1, 2, 3, 4, 5, 6, 7, 10]
    assert [len(x) if isinstance(x, str) else "too large" for _, x in got] == [
        1, 999, 1000, "too large", 5, "too large", 2, len("last-without-newline")]


def _peak(script: str, *args: str, env: dict | None = None) -> dict:
    """Run ``script`` in a fresh interpreter; its JSON answer plus its peak resident memory."""
    # VmHWM, the high-water mark of this interpreter's own memory: getrusage's ru_maxrss keeps
    # the forking parent's (pytest's, over 1 GiB late in a full run) across the exec
    code = textwrap.dedent(script) + textwrap.dedent("""
        import json as _json, re as _re
        _hwm = _re.search(r"VmHWM:\\s+(\\d+) kB", open("/proc/self/status").read())
        print(_json.dumps({"answer": answer, "peak": int(_hwm.group(1)) * 1024}))
    """)
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", **(env or {})})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


IMPORT_SOCIAL = """
    import sys
    from pathlib import Path
    from pastcast.imports import import_social
    result = import_social(sys.argv[1], [sys.argv[2]], sys.argv[3])
    answer = {"rows": result.rows, "drops": result.drops_by_reason}
"""


@pytest.mark.parametrize("write", [_zstd_lines, pytest.param(_gzip_lines, marks=pytest.mark.slow)], ids=["zst", "gz"])
def test_a_512_mib_comment_is_too_large_at_the_default_cap_in_bounded_memory(tmp_path, write):
    """The issue's bombs: a 16 KB .ndjson.zst and a 0.5 MB .ndjson.gz of one 512 MiB comment."""
    suffix = ".ndjson.zst" if write is _zstd_lines else ".ndjson.gz"
    path = write(tmp_path / f"bomb{suffix}", [_reddit(0)], 512 << 20, [_reddit(2)])
    assert path.stat().st_size < 1 << 20
    got = _peak(IMPORT_SOCIAL, "reddit", str(path), str(tmp_path / "out"))
    assert got["answer"] == {"rows": {"posts": 2, "drops": 1}, "drops": {"social/too_large": 1}}
    assert got["peak"] < GiB


def _json_gz_bomb(path: Path, size: int) -> Path:
    writer = zlib.compressobj(1, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [writer.compress(b'[{"id": "m", "question": "')]
    parts += [writer.compress(b"q" * (1 << 20)) for _ in range(size >> 20)]
    parts += [writer.compress(b'"}]'), writer.flush()]
    path.write_bytes(b"".join(parts))
    return path


def test_a_whole_json_file_past_the_file_cap_is_one_too_large_drop_and_other_files_are_read(tmp_path, monkeypatch):
    monkeypatch.setenv("PASTCAST_MAX_FILE_BYTES", str(1 << 20))
    path = _json_gz_bomb(tmp_path / "manifold.json.gz", 8 << 20)
    good = tmp_path / "manifold-good.json"
    good.write_text(json.dumps(FORMATS["manifold"][1][:1]))
    result = run_markets({"manifold": [path, good]}, {t: tmp_path / f"{t}.parquet" for t in
                                                      ("markets", "market_prices", "drops")})
    assert result.rows["markets"] == 1 and result.drops_by_reason == {"markets/too_large": 1}
    (detail,) = pl.read_parquet(result.paths["drops"])["detail"]
    assert "manifold.json.gz" in detail and "PASTCAST_MAX_FILE_BYTES" in detail


@pytest.mark.slow
def test_a_market_json_gz_past_the_file_cap_is_one_too_large_drop_in_bounded_memory(tmp_path):
    """The issue's 0.5 MB market .json.gz that expands to over a gigabyte, at the default cap."""
    path = _json_gz_bomb(tmp_path / "manifold.json.gz", 1 << 30)
    good = tmp_path / "manifold-good.json"
    good.write_text(json.dumps(FORMATS["manifold"][1][:1]))
    got = _peak("""
        import sys
        from pathlib import Path
        from pastcast.imports import import_markets
        result = import_markets("manifold", sys.argv[1:3], sys.argv[3])
        answer = {"markets": result.rows["markets"], "drops": result.drops_by_reason}
    """, str(path), str(good), str(tmp_path / "out"))
    assert got["answer"]["markets"] == 1
    assert got["answer"]["drops"].get("markets/too_large") == 1
    assert got["peak"] < GiB
    detail = pl.read_parquet(tmp_path / "out" / "drops.parquet").filter(pl.col("reason") == "too_large")["detail"]
    assert "manifold.json.gz" in detail[0] and "PASTCAST_MAX_FILE_BYTES" in detail[0]


def _gzip_bomb(size: int) -> bytes:
    writer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b"<p>" + b"a" * ((1 << 20) - 3)
    return b"".join([writer.compress(block) for _ in range(size >> 20)] + [writer.flush()])


def _warc_with_bomb(path: Path, body_size: int) -> Path:
    """Three HTML responses; the second's body is a gzip bomb (Content-Encoding: gzip)."""
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for i in range(3):
            body = _gzip_bomb(body_size) if i == 1 else f"<html><body><p>page {i}</p></body></html>".encode()
            headers = [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(body)))]
            if i == 1:
                headers.append(("Content-Encoding", "gzip"))
            record = writer.create_warc_record(
                f"https://news.example/{i}", "response", payload=BytesIO(body),
                http_headers=StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1"),
                warc_headers_dict={"WARC-Date": "2026-01-05T07:40:00Z"})
            writer.write_record(record)
    return path


@pytest.mark.parametrize("reader", ["auto", "warcio", "fastwarc"])
def test_a_gzip_bomb_http_body_is_a_too_large_drop_and_the_next_record_is_read(tmp_path, monkeypatch, reader):
    monkeypatch.setenv("PASTCAST_MAX_RECORD_BYTES", str(1 << 20))
    path = _warc_with_bomb(tmp_path / "bomb.warc.gz", 16 << 20)
    items = list(iter_html_pages(path, reader=reader))
    pages = [i.url for i in items if isinstance(i, HtmlPage)]
    assert pages == ["https://news.example/0", "https://news.example/2"]
    (drop,) = [i for i in items if not isinstance(i, HtmlPage) and i.reason != "not_response"]
    assert drop.reason == "too_large" and "bomb.warc.gz" in drop.detail and "byte" in drop.detail


@pytest.mark.slow
def test_the_issues_warc_bomb_stays_under_a_gibibyte(tmp_path):
    path = _warc_with_bomb(tmp_path / "bomb.warc.gz", 1 << 30)
    assert path.stat().st_size < 4 << 20
    got = _peak("""
        import sys
        from pastcast.sources.warc import HtmlPage, iter_html_pages
        items = list(iter_html_pages(sys.argv[1]))
        answer = [i.url if isinstance(i, HtmlPage) else i.reason for i in items]
    """, str(path))
    assert [a for a in got["answer"] if a != "not_response"] == [
        "https://news.example/0", "too_large", "https://news.example/2"]
    assert got["peak"] < GiB


# ------------------------------------------------------------------ empty inputs

EMPTY = [("reddit", "reddit.ndjson.zst"), ("reddit", "reddit.json"), ("hn", "hn.jsonl.gz"),
         ("bluesky", "bluesky.json"), ("manifold", "manifold.json"), ("polymarket", "polymarket.json.gz"),
         ("kalshi", "kalshi.json.bz2"), ("metaculus", "metaculus.ndjson"), ("forecastbench", "fb.json")]


@pytest.mark.parametrize("fmt, name", EMPTY)
def test_a_zero_byte_dump_is_an_empty_file_drop(tmp_path, fmt, name):
    path = tmp_path / name
    path.write_bytes(b"")
    _, drops = _import(fmt, path, tmp_path / "out")
    (detail,) = drops.filter(pl.col("reason") == "empty_file")["detail"]
    assert name in detail and "0 bytes" in detail


def test_a_zero_byte_warc_is_an_empty_file_drop(tmp_path):
    path = tmp_path / "CC-NEWS-20260105074000-00000.warc.gz"
    path.write_bytes(b"")
    (drop,) = list(iter_html_pages(path))
    assert drop.reason == "empty_file" and path.name in drop.detail


# ------------------------------------------------------------------ a whole build

def test_a_build_with_bad_records_builds_and_empty_inputs_fail_inputs_read_whole(tmp_path):
    """One bad record in each dump format the corpus holds: the build writes its version, each a
    drop naming file, record and field; zero-byte inputs fail only ``inputs_read_whole``."""
    corpus = make_corpus(tmp_path, [date(2026, 1, 5)])
    bad_line = json.dumps(_set(_reddit(90), ["created_utc"], 1e300))
    with open(corpus / "social" / "reddit_bad.ndjson", "w") as fh:
        fh.write(bad_line + "\n" + json.dumps(_reddit(91)) + "\n")
    manifold = json.loads((corpus / "markets" / "manifold.json").read_text())
    manifold["markets"][0]["url"] = ["https://a", "https://b"]
    (corpus / "markets" / "manifold.json").write_text(json.dumps(manifold))
    (corpus / "warc" / "CC-NEWS-20260107042000-00001.warc.gz").write_bytes(b"")
    (corpus / "social" / "reddit_failed_download.ndjson.zst").write_bytes(b"")

    folder = pipeline.run_all(corpus, tmp_path / "work", tmp_path / "snapshots", "s", publish=False)
    drops = read_table(folder, "drops")
    details = drops["detail"].to_list()
    assert any("reddit_bad.ndjson line 1" in d and "created_utc" in d for d in details)
    assert any("manifold.json" in d and "markets[0]" in d and "url" in d for d in details)
    assert "reddit:t1_c91" in set(read_table(folder, "posts")["post_id"])
    empty = drops.filter(pl.col("reason") == "empty_file")["item_id"].to_list()
    assert len(empty) == 2
    failed = {o.name: o for o in publish_if_sound(folder) if not o.passed}
    assert set(failed) == {"inputs_read_whole"} and failed["inputs_read_whole"].problems == 2
