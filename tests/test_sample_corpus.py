"""The bundled sample corpus (corpora/): reproducible build, WARC content, markets, posts, and the
ground truth the question generator relies on (result-sentence forms, no pre-result leaks)."""
from __future__ import annotations

import importlib.util
import io
import json
import re
import sys
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import zstandard
from warcio.archiveiterator import ArchiveIterator

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT / "corpora"
SAMPLE = CORPORA / "sample"
SRC = CORPORA / "sample_src"


def _load_builder():
    spec = importlib.util.spec_from_file_location("build_sample", CORPORA / "build_sample.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("build_sample", mod)  # dataclasses look the module up by name
    spec.loader.exec_module(mod)
    return mod


builder = _load_builder()


def _files(base: Path) -> dict[str, bytes]:
    return {str(p.relative_to(base)): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def articles():
    return builder.load_articles(SRC)


@pytest.fixture(scope="module")
def events():
    return json.loads((SRC / "events.json").read_text(encoding="utf-8"))["events"]


@pytest.fixture(scope="module")
def warc_records():
    recs = []
    for path in sorted((SAMPLE / "warc").glob("*.warc.gz")):
        with path.open("rb") as fh:
            for r in ArchiveIterator(fh):
                status = ctype = None
                if r.rec_type == "response":
                    status = r.http_headers.get_statuscode()
                    ctype = r.http_headers.get_header("Content-Type") or ""
                recs.append({
                    "file": path.name, "type": r.rec_type, "status": status, "ctype": ctype,
                    "date": r.rec_headers.get_header("WARC-Date"),
                    "uri": r.rec_headers.get_header("WARC-Target-URI"),
                    "id": r.rec_headers.get_header("WARC-Record-ID"),
                    "http": r.http_headers, "body": r.content_stream().read(),
                })
    return recs


# ---------------------------------------------------------------------------------------------
# reproducibility


def test_rebuild_is_byte_identical(tmp_path):
    builder.build(tmp_path)
    committed, rebuilt = _files(SAMPLE), _files(tmp_path)
    assert sorted(committed) == sorted(rebuilt)
    for name in committed:
        assert committed[name] == rebuilt[name], f"{name} differs from a fresh build; run corpora/build_sample.py"


def test_gzip_members_carry_no_timestamp():
    for path in (SAMPLE / "warc").glob("*.warc.gz"):
        head = path.read_bytes()[:10]
        assert head[:3] == b"\x1f\x8b\x08" and head[4:8] == b"\0\0\0\0", path.name


# ---------------------------------------------------------------------------------------------
# WARC content


def test_warc_file_naming_and_warcinfo(warc_records):
    files = sorted({r["file"] for r in warc_records})
    assert len(files) >= 3
    for serial, name in enumerate(files):
        m = re.fullmatch(r"CC-NEWS-(\d{14})-(\d{5})\.warc\.gz", name)
        assert m and int(m.group(2)) == serial
        recs = [r for r in warc_records if r["file"] == name]
        assert recs[0]["type"] == "warcinfo"
        first = min(r["date"] for r in recs[1:])
        assert datetime.strptime(m.group(1), "%Y%m%d%H%M%S").strftime("%Y-%m-%dT%H:%M:%SZ") == first
        # records in crawl-time order, one calendar month per file
        dates = [r["date"] for r in recs[1:]]
        assert dates == sorted(dates)
        assert len({d[:7] for d in dates}) == 1


def test_warc_html_responses_span_the_window(warc_records):
    html = [r for r in warc_records if r["type"] == "response" and r["status"] == "200"
            and r["ctype"].startswith("text/html")]
    assert len(html) >= 150
    assert len({r["date"][:10] for r in html}) >= 60
    ids = [r["id"] for r in warc_records]
    assert len(ids) == len(set(ids))
    requests = {r["uri"] for r in warc_records if r["type"] == "request"}
    assert all(r["uri"] in requests for r in warc_records if r["type"] == "response")


def test_warc_edge_records(warc_records):
    resp = [r for r in warc_records if r["type"] == "response"]
    non_html_200 = Counter(r["ctype"].split(";")[0] for r in resp
                           if r["status"] == "200" and not r["ctype"].startswith("text/html"))
    assert {"image/jpeg", "application/pdf", "text/plain"} <= set(non_html_200)
    assert sum(non_html_200.values()) >= 3
    statuses = Counter(r["status"] for r in resp if r["status"] != "200")
    assert {"301", "404", "503"} <= set(statuses)
    moved = next(r for r in resp if r["status"] == "301")
    assert moved["http"].get_header("Location").startswith("https://")
    # one page declares its charset only in <meta charset="windows-1252">
    cp = [r for r in resp if r["status"] == "200" and r["ctype"] == "text/html"]
    assert len(cp) == 1
    body = cp[0]["body"]
    assert b'<meta charset="windows-1252">' in body and b"Caf\xe9" in body
    with pytest.raises(UnicodeDecodeError):
        body.decode("utf-8")


def test_date_styles_are_rendered_as_declared(articles, warc_records):
    pages = {r["uri"]: r["body"] for r in warc_records if r["type"] == "response" and r["status"] == "200"}
    styles = Counter(a.date_style for a in articles)
    assert styles["jsonld"] + styles["meta"] >= 0.6 * len(articles)
    assert all(styles[s] >= 5 for s in ("time", "url", "text", "none"))
    dated_url = re.compile(r"/20\d\d/\d\d/\d\d/")
    iso = re.compile(rb"20\d\d-\d\d-\d\dT\d\d:\d\d")
    for a in articles:
        page = pages[a.url]
        has_ld = b'"datePublished"' in page
        has_meta = b'article:published_time' in page
        has_time = b"<time datetime=" in page
        assert has_ld == (a.date_style == "jsonld"), a.id
        assert has_meta == (a.date_style == "meta"), a.id
        assert has_time == (a.date_style == "time"), a.id
        assert bool(dated_url.search(a.path)) == (a.date_style == "url"), a.id
        assert (b'class="dateline"' in page) == (a.date_style == "text"), a.id
        if a.date_style in ("jsonld", "meta", "time"):
            assert a.published.isoformat().encode() in page
        if a.date_style in ("text", "none", "url"):
            assert not iso.search(page), a.id
        if a.date_style in ("text", "none"):
            assert not re.search(rb"/20\d\d/\d\d/\d\d/", page), a.id
        if a.date_style == "none":
            month_names = "|".join(builder.MONTHS).encode()
            assert not re.search(rb"\b\d{1,2} (" + month_names + rb") 20\d\d", page), a.id


def test_crawl_dates_follow_publication(articles, warc_records):
    by_uri = {r["uri"]: r for r in warc_records if r["type"] == "response"}
    for a in articles:
        rec = by_uri[a.url]
        crawl = datetime.strptime(rec["date"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        assert crawl == a.published.astimezone(timezone.utc) + timedelta(hours=a.lag_hours)
        assert rec["http"].get_header("Date") == builder.http_date(crawl)


# ---------------------------------------------------------------------------------------------
# article sources and ground truth


def test_article_sources(articles):
    assert len(articles) >= 160
    days = {a.published.date() for a in articles}
    assert len(days) >= 60
    assert min(days).isoformat() == "2026-01-05" and max(days).isoformat() == "2026-03-31"
    assert len({a.domain for a in articles}) == 8
    assert all(a.domain.endswith(".example") for a in articles)
    for a in articles:
        words = sum(len(p.split()) for p in a.paragraphs)
        assert 120 <= words <= 400, (a.id, words)


def test_syndicated_copies(articles):
    by_id = {a.id: a for a in articles}
    copies = [a for a in articles if a.syndicated_from]
    assert len(copies) >= 18
    identical = 0
    for c in copies:
        o = by_id[c.syndicated_from]
        assert o.syndicated_from is None and o.domain != c.domain
        lag = c.published - o.published
        assert timedelta(days=1) <= lag <= timedelta(days=3), c.id
        identical += c.paragraphs == o.paragraphs
    assert identical >= 0.4 * len(copies) and len(copies) - identical >= 0.4 * len(copies)


WD = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)"
END = rf"(?: on (?P<weekday>{WD}))?(?=[,.](?:\s|$))"
NAME = r"[A-Z][\w'’-]*(?:\s+(?:(?:of|the|and|for)\s+)?[A-Z][\w'’-]*)*"
# The result-sentence forms (first sentence of every RESULT article); see corpora/README.md.
FORMS = {
    "won": rf"^(?P<winner>{NAME}) (?:has )?won the (?P<event>.+?){END}",
    "elected": rf"^(?P<winner>{NAME}) was elected (?P<role>.+?){END}",
    "beat": rf"^(?P<winner>{NAME}) (?:beat|defeated) (?P<loser>{NAME}) (?P<score>\d+-\d+)\b",
    "org_appointed": rf"^(?:The )?(?P<org>{NAME}) (?:appointed|named) (?P<winner>{NAME}) as (?:its new )?(?P<role>.+?){END}",
    "person_appointed": rf"^(?P<winner>{NAME}) was appointed (?P<role>.+?) of (?P<org>(?:the )?{NAME}){END}",
    "chose": rf"^(?:The )?(?P<org>{NAME}) (?:chose|selected) (?P<winner>{NAME}) (?:to host the (?P<event>.+?)|as (?P<role>.+?)){END}",
    "figure": rf"^The (?P<org>{NAME}) (?:set|raised|cut) its (?P<indicator>.+?) (?:at|to) (?P<winner>\d[\d.,]*(?:%| marks?))",
    "indicator": rf"^(?P<indicator>[A-Z][a-z ]+?) (?:fell|rose|was unchanged) (?:to|at) (?P<winner>\d[\d.]*%) in (?P<period>[A-Z]\w+), the (?P<org>{NAME}) said",
}
OUTCOME_WORDS = re.compile(r"\b(won|wins|has won|beat|beats|defeated|elected|appointed|named|chose|selected|"
                           r"set its|raised its|cut its|fell to|rose to|victory|victorious|champions?|"
                           r"triumph\w*|clinched|lifted)\b", re.I)


def first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s+(?=[A-Z\"“])", text, maxsplit=1)[0]


def sentences(text: str) -> list[str]:
    return re.split(r"(?:(?<=[.!?])|(?<=[.!?][\"”]))\s+(?=[A-Z\"“])", text)


def test_events_reference_articles(articles, events):
    by_id = {a.id: a for a in articles}
    assert len(events) >= 25
    for e in events:
        res = by_id[e["result_article"]]
        assert res.published.isoformat() == e["result_published"]
        assert 2 <= len(e["preview_articles"]) <= 3
        for pid in e["preview_articles"]:
            gap = res.published - by_id[pid].published
            assert timedelta(days=1) <= gap <= timedelta(days=42), (e["event_id"], pid)
        for sid in e["syndicated_copies"]:
            assert by_id[sid].syndicated_from in [e["result_article"], *e["preview_articles"]]


def test_result_sentences_use_the_documented_forms(articles, events):
    by_id = {a.id: a for a in articles}
    used = Counter()
    for e in events:
        fs = first_sentence(by_id[e["result_article"]].paragraphs[0])
        assert fs == e["result_sentence"]
        form = e["sentence_form"]
        m = re.match(FORMS[form], fs)
        assert m, (e["event_id"], fs)
        assert m.group("winner") == e["outcome"], (e["event_id"], m.group("winner"))
        used[form] += 1
    assert len(used) == len(FORMS)
    # no other original article opens with a result sentence
    results = {e["result_article"] for e in events}
    for a in articles:
        if a.id in results or a.syndicated_from:
            continue
        fs = first_sentence(a.paragraphs[0])
        assert not any(re.match(f, fs) for f in FORMS.values()), (a.id, fs)


def test_no_outcome_before_the_result(articles, events):
    results = {e["result_article"] for e in events}
    by_id = {a.id: a for a in articles}
    for e in events:
        cutoff = by_id[e["result_article"]].published
        for a in articles:
            if a.published >= cutoff:
                continue
            for i, para in enumerate(a.paragraphs):
                for s in sentences(para):
                    if a.id in results and i == 0 and s == first_sentence(para):
                        continue  # another event's own result sentence
                    assert not (e["outcome"] in s and OUTCOME_WORDS.search(s)), (e["event_id"], a.id, s)


# ---------------------------------------------------------------------------------------------
# markets and posts


def test_market_dump():
    dump = json.loads((SAMPLE / "markets" / "manifold.json").read_text(encoding="utf-8"))
    markets, bets = dump["markets"], dump["bets"]
    assert len(markets) >= 10
    by_id = {m["id"]: m for m in markets}
    mc = [m for m in markets if m["outcomeType"] == "MULTIPLE_CHOICE"]
    assert len(mc) >= 4
    assert sum(m.get("resolution") == "CANCEL" for m in markets) == 1
    open_ = [m for m in markets if not m["isResolved"]]
    assert len(open_) == 1 and open_[0]["closeTime"] > builder.DUMP_TIME.timestamp() * 1000
    for m in markets:
        for k in ("id", "slug", "url", "question", "description", "creatorUsername", "outcomeType", "mechanism",
                  "createdTime", "closeTime", "isResolved"):
            assert k in m
        assert m["mechanism"] == ("cpmm-multi-1" if m["outcomeType"] == "MULTIPLE_CHOICE" else "cpmm-1")
        if m["outcomeType"] == "MULTIPLE_CHOICE":
            assert m["resolution"] == "CHOOSE_ONE"
            assert [a["resolution"] for a in m["answers"]].count("YES") == 1
            assert abs(sum(a["probability"] for a in m["answers"]) - 1) < 0.01
        else:
            assert 0 < m["probability"] < 1
        if m["isResolved"]:
            assert m["resolutionTime"] >= m["closeTime"]
    per_market = Counter(b["contractId"] for b in bets)
    assert set(per_market) == set(by_id)
    for b in bets:
        m = by_id[b["contractId"]]
        assert m["createdTime"] <= b["createdTime"] < m["closeTime"]
        assert 0 < b["probBefore"] < 1 and 0 < b["probAfter"] < 1 and b["amount"] > 0
        assert b["outcome"] in ("YES", "NO")
        assert ("answerId" in b) == (m["outcomeType"] == "MULTIPLE_CHOICE")
    for m in markets:  # about one bet every 1-3 days
        span_days = (min(m["closeTime"], builder.DUMP_TIME.timestamp() * 1000) - m["createdTime"]) / 86400000
        assert span_days / 3 - 1 <= per_market[m["id"]] <= span_days + 1


def test_social_dump():
    raw = zstandard.ZstdDecompressor().stream_reader(
        io.BytesIO((SAMPLE / "social" / "reddit_sample.ndjson.zst").read_bytes())).read()
    posts = [json.loads(line) for line in raw.decode("utf-8").splitlines()]
    assert len(posts) >= 80
    subs = [p for p in posts if "title" in p]
    comments = [p for p in posts if "body" in p]
    assert len(subs) + len(comments) == len(posts) and len(subs) >= 15
    assert all(p["name"] == "t3_" + p["id"] for p in subs)
    link_ids = {p["name"] for p in subs}
    assert all(c["link_id"] in link_ids and c["parent_id"][:3] in ("t1_", "t3_") for c in comments)
    assert sum(c["body"] in ("[deleted]", "[removed]") for c in comments) >= 4
    assert any(isinstance(p["created_utc"], str) for p in posts)
    days = {datetime.fromtimestamp(int(p["created_utc"]), timezone.utc).date() for p in posts}
    assert min(days).isoformat() >= "2026-01-05" and max(days).isoformat() <= "2026-03-31"
    assert len(posts) == len((SRC / "posts.jsonl").read_text(encoding="utf-8").splitlines())
