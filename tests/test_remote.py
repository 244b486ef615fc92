"""Remote inputs against a real HTTP server on 127.0.0.1 that can be told to misbehave."""

import gzip
import random
import socket
import threading
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import pytest

from pastcast.sources.remote import (Input, RemoteError, expand_inputs, fetch, iter_local,
                                     release)

MONTH = "crawl-data/CC-NEWS/2026/03"
NAMES = [f"CC-NEWS-2026030{i}000000-0000{i}.warc.gz" for i in (1, 2, 3)]
SIZE = 200_000
FAST = {"retries": 3, "backoff": 0.01, "timeout": 3, "chunk": 8192}


class Handler(BaseHTTPRequestHandler):
    """Serves the server's root with Range support; ``server.script[path]`` lists one-shot
    misbehaviours: "drop:N" (announce the full length, send N bytes, close), "503", "429",
    "429 VALUE" (with ``Retry-After: VALUE``), "ignore-range" (answer 200 with the whole file)."""

    def do_GET(self):
        srv, rel = self.server, self.path.split("?")[0].lstrip("/")
        rng = self.headers.get("Range")
        with srv.lock:
            srv.log.append((rel, rng))
            action = srv.script[rel].pop(0) if srv.script[rel] else ""
        if action in ("503", "429") or action.startswith("429 "):
            self.send_response(int(action[:3]))
            if action == "503":
                self.send_header("Retry-After", "0")
            elif action.startswith("429 "):
                self.send_header("Retry-After", action[4:])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        file = srv.root / rel
        if not file.is_file():
            self.send_error(404)
            return
        data = file.read_bytes()
        start = int(rng.removeprefix("bytes=").split("-")[0]) if rng else 0
        if action == "ignore-range" or not rng:
            self.send_response(200)
            body = data
        elif start >= len(data):
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{len(data)}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        else:
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            body = data[start:]
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if action.startswith("drop:"):
            self.wfile.write(body[: int(action[5:])])
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def server(tmp_path, monkeypatch):
    monkeypatch.setenv("no_proxy", "127.0.0.1")  # never route the loopback through a proxy
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    root = tmp_path / "www"
    (root / MONTH).mkdir(parents=True)
    rnd = random.Random(7)
    files = {}
    for name in NAMES:
        files[name] = rnd.randbytes(SIZE)
        (root / MONTH / name).write_bytes(files[name])
    listing = "".join(f"{MONTH}/{name}\n" for name in NAMES)
    (root / MONTH / "warc.paths.gz").write_bytes(gzip.compress(listing.encode()))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.root, httpd.script, httpd.log, httpd.lock = root, defaultdict(list), [], threading.Lock()
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield SimpleNamespace(base=base, files=files, script=httpd.script, log=httpd.log,
                          url=lambda name: f"{base}/{MONTH}/{name}",
                          requests=lambda name: [r for p, r in httpd.log if p.endswith(name)])
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=2)


def _remote(server, i=0):
    return Input(NAMES[i], server.url(NAMES[i]), True)


def test_listing_url_expands_to_its_files_in_order(server):
    inputs = expand_inputs([f"{server.base}/{MONTH}/warc.paths.gz"], timeout=3)
    assert inputs == [Input(n, server.url(n), True) for n in NAMES]
    mirror = expand_inputs([f"{server.base}/{MONTH}/warc.paths.gz"],
                           base_url="https://mirror.example/cc/", timeout=3)
    assert mirror[0].source == f"https://mirror.example/cc/{MONTH}/{NAMES[0]}"


def test_single_urls_and_duplicate_names_keep_the_first(server):
    first = server.url(NAMES[1])
    inputs = expand_inputs([first, f"{server.base}/{MONTH}/warc.paths.gz"], timeout=3)
    assert [i.name for i in inputs] == [NAMES[1], NAMES[0], NAMES[2]]
    assert inputs[0].source == first


def test_local_listing_plain_or_gzip_with_base_url(server, tmp_path):
    plain = tmp_path / "warc.paths"
    plain.write_text(f"{MONTH}/{NAMES[0]}\n\n{MONTH}/{NAMES[2]}\n")
    packed = tmp_path / "march.paths.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    for listing in (plain, packed):
        inputs = expand_inputs([str(listing)], base_url=server.base)
        assert inputs == [Input(NAMES[0], server.url(NAMES[0]), True),
                          Input(NAMES[2], server.url(NAMES[2]), True)]
    assert expand_inputs([str(plain)])[0].source.startswith("https://data.commoncrawl.org/")
    assert not server.log  # reading a local listing contacts nobody


def test_resumes_after_a_dropped_connection(server, tmp_path):
    server.script[f"{MONTH}/{NAMES[0]}"] += ["drop:50000"]
    seen = []
    path = fetch(_remote(server), tmp_path / "spool", on_bytes=seen.append, **FAST)
    assert path == tmp_path / "spool" / NAMES[0]
    assert path.read_bytes() == server.files[NAMES[0]]
    assert server.requests(NAMES[0]) == [None, "bytes=50000-"]
    assert sum(seen) == SIZE
    assert not (tmp_path / "spool" / f"{NAMES[0]}.part").exists()


def test_503_and_429_are_retried(server, tmp_path):
    server.script[f"{MONTH}/{NAMES[0]}"] += ["503", "429"]
    path = fetch(_remote(server), tmp_path, **FAST)
    assert path.read_bytes() == server.files[NAMES[0]]
    assert len(server.requests(NAMES[0])) == 3


def test_the_waits_follow_the_shared_retry_policy(server, tmp_path):
    """Retry-After as seconds or as an HTTP date sets the wait, capped at MAX_WAIT; without one,
    full jitter below the doubling ceiling. The sleep is injected: nothing waits."""
    soon = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=30), usegmt=True)
    server.script[f"{MONTH}/{NAMES[0]}"] += [f"429 {soon}", "429 7", "429 86400", "503", "429", "429"]
    waits = []
    path = fetch(_remote(server), tmp_path, **{**FAST, "retries": 6}, sleep=waits.append)
    assert path.read_bytes() == server.files[NAMES[0]]
    assert len(server.requests(NAMES[0])) == 7 and len(waits) == 6
    assert 20 < waits[0] <= 30  # the date, seen from now (the request took a moment)
    assert waits[1:4] == [7.0, 60.0, 0.0]  # seconds; a day capped at MAX_WAIT; the 503's "0"
    assert 0 <= waits[4] <= 0.01 * 2 ** 4 and 0 <= waits[5] <= 0.01 * 2 ** 5


def test_404_fails_at_once_naming_url_and_status(server, tmp_path):
    missing = Input("nope.warc.gz", server.url("nope.warc.gz"), True)
    with pytest.raises(RemoteError, match=r"nope\.warc\.gz: HTTP 404") as err:
        fetch(missing, tmp_path, **FAST)
    assert err.value.status == 404 and server.url("nope.warc.gz") in str(err.value)
    assert len(server.requests("nope.warc.gz")) == 1


def test_gives_up_after_retries_naming_bytes_and_last_error(server, tmp_path):
    server.script[f"{MONTH}/{NAMES[0]}"] += ["503"] * 10
    with pytest.raises(RemoteError, match=r"4 failed attempts.*0 bytes received.*503") as err:
        fetch(_remote(server), tmp_path, **FAST)
    assert server.url(NAMES[0]) in str(err.value)
    assert len(server.requests(NAMES[0])) == 4  # the first attempt and 3 retries


def test_a_complete_file_is_not_requested_again(server, tmp_path):
    first = fetch(_remote(server), tmp_path, **FAST)
    before = len(server.log)
    assert fetch(_remote(server), tmp_path, **FAST) == first
    assert len(server.log) == before


def test_server_ignoring_range_restarts_from_zero(server, tmp_path):
    server.script[f"{MONTH}/{NAMES[0]}"] += ["drop:50000", "ignore-range"]
    path = fetch(_remote(server), tmp_path, **FAST)
    assert path.read_bytes() == server.files[NAMES[0]]
    assert server.requests(NAMES[0]) == [None, "bytes=50000-"]


def test_a_complete_part_left_before_the_rename_is_finished(server, tmp_path):
    (tmp_path / f"{NAMES[0]}.part").write_bytes(server.files[NAMES[0]])  # answered with 416
    assert fetch(_remote(server), tmp_path, **FAST).read_bytes() == server.files[NAMES[0]]


def test_iter_local_yields_in_order_and_downloads_ahead(server, tmp_path):
    spool = tmp_path / "spool"
    local = tmp_path / "mine.warc.gz"
    local.write_bytes(b"local")
    inputs = [_remote(server, 0), Input(local.name, str(local), False),
              _remote(server, 1), _remote(server, 2)]
    order = []
    for inp, path in iter_local(inputs, spool, prefetch=1, **FAST):
        order.append(inp.name)
        if inp.name == local.name:
            # While this one is processed, the next remote file downloads in the background...
            deadline = time.monotonic() + 3
            while not (spool / NAMES[1]).exists() and time.monotonic() < deadline:
                time.sleep(0.01)
            assert (spool / NAMES[1]).exists()
            time.sleep(0.2)  # ...but no further than ``prefetch`` ahead.
            assert not server.requests(NAMES[2])
        assert path.read_bytes() == (b"local" if not inp.is_remote else server.files[inp.name])
        release(path, inp)
        assert path.exists() != inp.is_remote  # spooled copies go, the user's file stays
    assert order == [inp.name for inp in inputs]
    assert list(spool.iterdir()) == []


def test_iter_local_raises_a_failed_fetch_at_its_turn(server, tmp_path):
    inputs = [_remote(server, 0), Input("gone.warc.gz", server.url("gone.warc.gz"), True)]
    got = []
    with pytest.raises(RemoteError, match="404"):
        for inp, _ in iter_local(inputs, tmp_path, prefetch=2, **FAST):
            got.append(inp.name)
    assert got == [NAMES[0]]


def test_local_paths_and_globs(tmp_path):
    for name in ("b.warc.gz", "a.warc.gz", "c.txt"):
        (tmp_path / name).write_bytes(b"x")
    inputs = expand_inputs([str(tmp_path / "*.warc.gz"), str(tmp_path / "c.txt"),
                            str(tmp_path / "a.warc.gz")])
    assert [(i.name, i.is_remote) for i in inputs] == [
        ("a.warc.gz", False), ("b.warc.gz", False), ("c.txt", False)]
    assert fetch(inputs[0], tmp_path / "spool") == tmp_path / "a.warc.gz"
    missing = str(tmp_path / "missing.warc.gz")
    with pytest.raises(FileNotFoundError, match="missing.warc.gz.*no such file"):
        expand_inputs([missing])
    with pytest.raises(FileNotFoundError, match=r"\*\.arc.*matches no file"):
        expand_inputs([str(tmp_path / "*.arc")])
