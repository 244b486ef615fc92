"""Faults at the evaluator's edges (issue 18): every bad HTTP request gets a JSON answer and
the server goes on serving; `eval serve` on a bad port fails in one line and claims nothing;
`eval score` rejects two different forecasts for one question on one day."""

import http.client
import json
import socket
import subprocess
import sys
import time as clock

import polars as pl
import pytest
from click.testing import CliRunner

from evalkit import article, question, ts, write_snapshot
from pastcast.cli import main as cli
from pastcast.evaluate.external import score_external
from pastcast.evaluate.serve import MAX_ADVANCE_DAYS, MAX_BODY_BYTES, PortUnavailable, make_server

SECRET = "Ana Ruiz"
TIMEOUT = 0.5  # the server's per-connection timeout in these tests (seconds)
CLIENT_TIMEOUT = 20  # the client never waits longer: a hang fails the test instead of blocking it


def _snapshot(root):
    return write_snapshot(root, [
        article("a1", "Harbour board", "The harbour board will choose a chair.", ts("2024-01-02")),
        article("a2", "Chair chosen", f"{SECRET} was chosen as chair of the harbour board.", ts("2024-01-05"))],
        [question("q1", "Who will chair the harbour board?", SECRET, "2024-01-01", "2024-01-05"),
         question("q2", "Who will lead the port?", "Bo Lind", "2024-01-01", "2024-01-06")],
        "2024-01-01", "2024-01-07")


@pytest.fixture()
def server(tmp_path):
    import threading

    snap = _snapshot(tmp_path / "s")
    srv, run = make_server(snap, tmp_path / "run", timeout=TIMEOUT)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv.server_address[1], run, tmp_path
    srv.shutdown()
    srv.server_close()
    run.close()


def raw(port, data: bytes, half_close: bool = False):
    """Send raw bytes on a new connection; (status, JSON body, the socket) of the answer."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=CLIENT_TIMEOUT)
    sock.sendall(data)
    if half_close:
        sock.shutdown(socket.SHUT_WR)
    response = http.client.HTTPResponse(sock)
    response.begin()
    body = json.loads(response.read())
    return response.status, body, response, sock


def post(port, path, body: bytes, headers: dict | None = None, version: str = "HTTP/1.1", half_close=False):
    """``headers`` None: a Content-Length of the body; else exactly these (and Host)."""
    head = {"Host": "127.0.0.1", **(headers if headers is not None else {"Content-Length": str(len(body))})}
    lines = "".join(f"{k}: {v}\r\n" for k, v in head.items())
    status, payload, response, sock = raw(port, f"POST {path} {version}\r\n{lines}\r\n".encode() + body, half_close)
    sock.close()
    return status, payload, response


def get(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=CLIENT_TIMEOUT)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def still_serving(port, today=None):
    status, state = get(port, "/v1/state")
    assert status == 200 and (today is None or state["today"] == today)
    return state


@pytest.mark.parametrize("body", [b"[]", b'"advance"', b"3", b"null", b"[1, 2]", b"true"])
def test_a_body_that_is_json_but_not_an_object_is_400(server, body):
    port, _, _ = server
    status, payload, _ = post(port, "/v1/advance", body)
    assert status == 400 and "JSON object" in payload["error"]
    still_serving(port, "2024-01-01")  # and nothing moved


def test_a_bad_body_is_answered_and_the_same_connection_still_serves(server):
    port, _, _ = server
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=CLIENT_TIMEOUT)
    try:
        conn.request("POST", "/v1/forecast", body=b"[]", headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        assert response.status == 400 and "JSON object" in json.loads(response.read())["error"]
        conn.request("GET", "/v1/state")  # the body was read: keep-alive goes on
        response = conn.getresponse()
        assert response.status == 200 and json.loads(response.read())["today"] == "2024-01-01"
    finally:
        conn.close()


@pytest.mark.parametrize("body, words", [
    (b"{not json", "not JSON"),
    (b"\xff\xfe{}", "not JSON"),  # not UTF-8
    (b"[" * 200_000 + b"]" * 200_000, "not JSON"),  # nested too deeply for the parser
    (b"   ", "not JSON"),
])
def test_a_body_that_is_not_json_is_400(server, body, words):
    port, _, _ = server
    status, payload, _ = post(port, "/v1/forecast", body)
    assert status == 400 and words in payload["error"]
    still_serving(port)


def test_a_chunked_body_is_411(server):
    port, _, _ = server
    status, payload, response = post(port, "/v1/advance", b'2\r\n{}\r\n0\r\n\r\n',
                                     headers={"Transfer-Encoding": "chunked"})
    assert status == 411 and "Content-Length" in payload["error"]
    assert response.getheader("Connection") == "close"  # the body's bytes are not the next request
    still_serving(port, "2024-01-01")


def test_an_http10_post_without_content_length_is_411(server):
    port, _, _ = server
    status, payload, _ = post(port, "/v1/advance", b'{"days": 3}', headers={}, version="HTTP/1.0")
    assert status == 411 and "Content-Length" in payload["error"]
    still_serving(port, "2024-01-01")


def test_an_http11_post_without_a_body_is_one_day(server):
    port, _, _ = server
    status, state, _ = post(port, "/v1/advance", b"", headers={})
    assert status == 200 and state["today"] == "2024-01-02"


@pytest.mark.parametrize("length", ["abc", "-1", "1.5", "+2", " ", "0x10", "\u00b2"])
def test_a_content_length_that_is_not_a_non_negative_integer_is_400(server, length):
    port, _, _ = server
    status, payload, response = post(port, "/v1/advance", b"{}", headers={"Content-Length": length})
    assert status == 400 and "Content-Length" in payload["error"]
    assert response.getheader("Connection") == "close"
    still_serving(port, "2024-01-01")


def test_two_different_content_lengths_are_400(server):
    port, _, _ = server
    sock = socket.create_connection(("127.0.0.1", port), timeout=CLIENT_TIMEOUT)
    try:
        sock.sendall(b"POST /v1/advance HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{} ")
        response = http.client.HTTPResponse(sock)
        response.begin()
        assert response.status == 400 and "Content-Length" in json.loads(response.read())["error"]
    finally:
        sock.close()
    still_serving(port, "2024-01-01")


def test_a_body_over_the_limit_is_413_unread(server):
    port, _, _ = server
    # the headers alone: the answer comes without the body ever being sent
    status, payload, response = post(port, "/v1/forecast", b"", headers={"Content-Length": str(MAX_BODY_BYTES + 1)})
    assert status == 413 and str(MAX_BODY_BYTES) in payload["error"]
    assert response.getheader("Connection") == "close"
    status, _, _ = post(port, "/v1/forecast", b"", headers={"Content-Length": "9" * 40})
    assert status == 413
    still_serving(port)


def test_a_body_shorter_than_its_content_length_times_out_with_408(server):
    port, _, _ = server
    sock = socket.create_connection(("127.0.0.1", port), timeout=CLIENT_TIMEOUT)
    try:  # ten bytes of a promised hundred, and the connection held open
        sock.sendall(b"POST /v1/advance HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"days\": 1")
        response = http.client.HTTPResponse(sock)
        response.begin()  # the server's timeout answers (the client's would raise instead)
        assert response.status == 408 and "Content-Length 100" in json.loads(response.read())["error"]
        assert response.getheader("Connection") == "close"
    finally:
        sock.close()
    still_serving(port, "2024-01-01")


def test_a_body_cut_short_by_the_client_is_400(server):
    port, _, _ = server
    status, payload, _ = post(port, "/v1/advance", b'{"da', headers={"Content-Length": "100"}, half_close=True)
    assert status == 400 and "4 of its 100 bytes" in payload["error"]
    still_serving(port, "2024-01-01")


def test_an_idle_connection_is_closed_not_held(server):
    port, _, _ = server
    sock = socket.create_connection(("127.0.0.1", port), timeout=CLIENT_TIMEOUT)
    try:
        assert sock.recv(1) == b""  # closed by the server's timeout, without a request
    finally:
        sock.close()
    still_serving(port)


@pytest.mark.parametrize("request_bytes, status", [
    (b"PUT /v1/advance HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}", 501),
    (b"garbage\r\n\r\n", 400),
    (b"GET /v1/state HTTP/9.9\r\n\r\n", 505),
    (b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n", 414),
])
def test_errors_of_the_http_layer_are_json_too(server, request_bytes, status):
    port, _, _ = server
    got, payload, _, sock = raw(port, request_bytes)
    sock.close()
    assert got == status and isinstance(payload["error"], str) and payload["error"]
    still_serving(port)


@pytest.mark.parametrize("query", ["k=abc", "k=", "k=1e3", "k=" + "9" * 5000, "k=1.5"])
def test_a_bad_search_parameter_is_400(server, query):
    port, _, _ = server
    status, payload = get(port, f"/v1/search?query=harbour&{query}")
    assert status == 400 and "k must be an integer" in payload["error"]
    still_serving(port)


def test_k_out_of_range_is_clamped_as_before(server):
    port, _, _ = server
    assert get(port, "/v1/search?query=harbour&k=-5")[0] == 200
    assert get(port, "/v1/search_posts?query=harbour&k=100000")[0] == 200


@pytest.mark.parametrize("days", [0, -1, True, False, 1.5, 1.0, "2", None, [1], MAX_ADVANCE_DAYS + 1, 10 ** 30])
def test_advance_days_outside_the_range_is_400(server, days):
    port, _, _ = server
    status, payload, _ = post(port, "/v1/advance", json.dumps({"days": days}).encode())
    assert status == 400 and f"from 1 to {MAX_ADVANCE_DAYS}" in payload["error"]
    still_serving(port, "2024-01-01")  # the clock did not move


def test_advance_days_in_range(server):
    port, _, _ = server
    assert post(port, "/v1/advance", b"{}")[1]["today"] == "2024-01-02"  # {}: one day
    assert post(port, "/v1/advance", b'{"days": 2}')[1]["today"] == "2024-01-04"
    status, state, _ = post(port, "/v1/advance", json.dumps({"days": MAX_ADVANCE_DAYS}).encode())
    assert status == 200 and state["done"] is True and "summary" in state  # past the end: scored


def test_a_non_string_question_id_is_400(server):
    port, _, _ = server
    status, payload, _ = post(port, "/v1/forecast", json.dumps({"question_id": ["q1"], "forecast": {SECRET: 1}}).encode())
    assert status == 400 and "question_id" in payload["error"]


def test_an_unexpected_exception_is_500_and_tells_nothing(server, monkeypatch, capsys):
    port, run, _ = server

    def broken(*args, **kwargs):
        raise RuntimeError(f"the answer is {SECRET}")

    monkeypatch.setattr(run.env, "open_questions", broken)
    monkeypatch.setattr(run, "submit_forecast", broken)
    status, payload = get(port, "/v1/questions")
    assert status == 500 and SECRET not in json.dumps(payload) and payload["error"]
    status, payload, _ = post(port, "/v1/forecast", json.dumps({"question_id": "q1", "forecast": {"x": 1}}).encode())
    assert status == 500 and SECRET not in json.dumps(payload)
    still_serving(port)
    assert "RuntimeError" in capsys.readouterr().err  # the server's log has it


def test_an_unserialisable_answer_is_500(server, monkeypatch):
    port, run, _ = server
    monkeypatch.setattr(run, "state", lambda: {"today": object()})
    assert get(port, "/v1/state")[0] == 500
    monkeypatch.undo()
    still_serving(port)


# -- the port and the run folder -------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_make_server_on_a_used_or_bad_port_claims_nothing(tmp_path):
    snap = _snapshot(tmp_path / "s")
    out = tmp_path / "deep" / "run"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(PortUnavailable, match=f"127.0.0.1:{port}"):
            make_server(snap, out, port)
    for bad in (70000, -1, 65536):
        with pytest.raises(PortUnavailable, match=f"port {bad} "):
            make_server(snap, out, bad)
    assert not (tmp_path / "deep").exists()


def test_a_run_stopped_without_a_forecast_leaves_nothing(tmp_path):
    snap = _snapshot(tmp_path / "s")
    out = tmp_path / "deep" / "run"
    srv, run = make_server(snap, out)
    assert (out / ".ledger.jsonl.partial").is_file()
    run.advance(1)  # days without forecasts carry nothing
    srv.server_close()
    assert run.close() is False
    assert not (tmp_path / "deep").exists()
    # served again without --force; stopped with a forecast, the partial ledger stays and is refused
    srv, run = make_server(snap, out)
    run.submit_forecast("q1", {SECRET: 0.5})
    srv.server_close()
    assert run.close() is True
    assert SECRET in (out / ".ledger.jsonl.partial").read_text()
    with pytest.raises(FileExistsError, match="unfinished run"):
        make_server(snap, out)


def test_a_run_folder_that_existed_is_kept_when_the_run_leaves(tmp_path):
    snap = _snapshot(tmp_path / "s")
    out = tmp_path / "run"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    srv, run = make_server(snap, out)
    srv.server_close()
    run.close()
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


def test_cli_serve_on_a_bad_port_fails_in_one_line(tmp_path):
    snap = _snapshot(tmp_path / "s")
    out = tmp_path / "run"
    runner = CliRunner()
    for port in ("70000", "-1"):
        result = runner.invoke(cli, ["eval", "serve", "--snapshot", str(snap), "--out", str(out), "--port", port])
        assert result.exit_code != 0 and f"port {port}" in result.output
        assert "Traceback" not in result.output and result.output.strip().count("\n") == 0
        assert not out.exists()


def test_cli_serve_on_a_used_port_then_a_free_one_without_force(tmp_path):
    snap = _snapshot(tmp_path / "s")
    out = tmp_path / "run"
    command = [sys.executable, "-m", "pastcast.cli", "eval", "serve", "--snapshot", str(snap), "--out", str(out),
               "--port"]
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(command + [str(port)], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and f"127.0.0.1:{port}" in done.stderr and "in use" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr and done.stderr.strip().count("\n") == 0
    assert not out.exists()

    port = _free_port()
    proc = subprocess.Popen(command + [str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(200):  # wait for the server
            try:
                get(port, "/v1/state")
                break
            except OSError:
                clock.sleep(0.1)
        assert post(port, "/v1/forecast", json.dumps({"question_id": "q1", "forecast": {SECRET: 1.0}}).encode())[0] == 200
        assert post(port, "/v1/advance", b'{"days": 10}')[1]["done"] is True
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, stderr
    assert json.loads((out / "run.json").read_text())["forecasts_submitted"] == 1


# -- eval score: one question, one date, one forecast ------------------------------------------

def _line(qid, day, forecast):
    return json.dumps({"question_id": qid, "date": day, "forecast": forecast}, ensure_ascii=False)


def test_conflicting_forecasts_are_rejected_and_exact_repeats_count_once(tmp_path):
    snap = _snapshot(tmp_path / "s")
    lines = [
        _line("q1", "2024-01-02", {SECRET: 0.6, "Bo Lind": 0.3}),  # 1 \
        _line("q1", "2024-01-02", {SECRET: 0.2}),  # 2 / conflict: q1 has no other day
        _line("q2", "2024-01-02", {"Bo Lind": 0.7}),  # 3 ok
        _line("q2", "2024-01-02", {" Bo Lind ": 0.7}),  # 4 an exact repeat after stripping
        _line("q2", "2024-01-02", {"Bo Lind": 0.7}),  # 5 again
        _line("q2", "2024-01-03", {"Bo Lind": 0.5, "Cy Moe": 0.4}),  # 6 \
        _line("q2", "2024-01-03", {"Cy Moe": 0.4, "Bo Lind": 0.5}),  # 7 / reordered: a conflict
        _line("q2", "2024-01-03", {"Nobody": 2.0}),  # 8 invalid: rejected for that, no part of the conflict
        _line("q2", "2024-01-04", {"Bo Lind": 0.9}),  # 9 ok
    ]
    forecasts = tmp_path / "f.jsonl"
    forecasts.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["eval", "score", "--snapshot", str(snap), "--forecasts", str(forecasts),
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "conflicting_forecasts" in result.output and "2 exact repeats" in result.output

    rejected = [json.loads(x) for x in (out / "rejected.jsonl").read_text().splitlines()]
    assert [(r["line"], r["reason"]) for r in rejected] == [
        (1, "conflicting_forecasts"), (2, "conflicting_forecasts"), (6, "conflicting_forecasts"),
        (7, "conflicting_forecasts"), (8, "invalid_forecast")]
    assert "lines 1, 2" in rejected[0]["detail"] and "lines 6, 7" in rejected[2]["detail"]
    assert rejected[0]["question_id"] == "q1"

    ledger = [json.loads(x) for x in (out / "ledger.jsonl").read_text().splitlines()]
    assert [(e["question_id"], e["date"], e["forecast"]) for e in ledger] == [
        ("q2", "2024-01-02", {"Bo Lind": 0.7}), ("q2", "2024-01-04", {"Bo Lind": 0.9})]
    run = json.loads((out / "run.json").read_text())
    assert run["accepted"] == 2 and run["rejected"] == 5 and run["repeats"] == 2
    assert run["rejected_by_reason"] == {"conflicting_forecasts": 4, "invalid_forecast": 1}

    scores = pl.read_parquet(out / "scores.parquet")
    q1 = scores.filter(pl.col("question_id") == "q1").row(0, named=True)
    q2 = scores.filter(pl.col("question_id") == "q2").row(0, named=True)
    assert q1["forecast_made"] is False and q1["n_forecasts"] == 0 and q1["bss"] == 0.0
    assert q2["n_forecasts"] == 2


def test_a_file_without_conflicts_scores_as_before(tmp_path):
    snap = _snapshot(tmp_path / "s")
    forecasts = tmp_path / "f.jsonl"
    forecasts.write_text(_line("q1", "2024-01-02", {SECRET: 0.6}) + "\n" + _line("q1", "2024-01-03", {SECRET: 0.2}))
    r = score_external(snap, forecasts, tmp_path / "out")
    assert not r.rejected and not r.repeats and len(r.accepted) == 2 and r.run["repeats"] == 0


def test_forecast_lines_split_on_newlines_only(tmp_path):
    snap = _snapshot(tmp_path / "s")
    forecasts = tmp_path / "f.jsonl"
    # a BOM, CRLF endings, a U+2028 inside a string, a line that is not UTF-8
    forecasts.write_bytes(b"\xef\xbb\xbf" + _line("q1", "2024-01-02", {"Ana\u2028Ruiz": 0.6}).encode() + b"\r\n"
                          + b'{"question_id": "q2\xff"}\r\n'
                          + _line("q2", "2024-01-02", {"Bo Lind": 0.6}).encode() + b"\r\n")
    r = score_external(snap, forecasts, tmp_path / "out")
    assert [(x.line, x.reason) for x in r.rejected] == [(2, "malformed")] and "UTF-8" in r.rejected[0].detail
    assert [e.question_id for e in r.accepted] == ["q1", "q2"]


def test_an_unreadable_forecasts_file_is_one_error_naming_it(tmp_path, monkeypatch):
    snap = _snapshot(tmp_path / "s")
    folder = tmp_path / "forecasts.d"
    folder.mkdir()
    with pytest.raises(ValueError, match="forecasts.d"):
        score_external(snap, folder, tmp_path / "out")
    with pytest.raises(FileNotFoundError, match="missing.jsonl"):
        score_external(snap, tmp_path / "missing.jsonl", tmp_path / "out")
    assert not (tmp_path / "out").exists()  # no run folder claimed for a file that cannot be read

    forecasts = tmp_path / "f.jsonl"
    forecasts.write_text(_line("q1", "2024-01-02", {SECRET: 0.6}))
    from pathlib import Path

    real = Path.read_bytes

    def denied(self):
        if self.name == "f.jsonl":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", denied)  # root reads a mode-000 file: simulate it
    result = CliRunner().invoke(cli, ["eval", "score", "--snapshot", str(snap), "--forecasts", str(forecasts),
                                      "--out", str(tmp_path / "out")])
    assert result.exit_code == 1 and "f.jsonl" in result.output and "Permission denied" in result.output
    assert "Traceback" not in result.output and result.output.strip().count("\n") == 0


def test_cli_bad_inputs_are_one_line_errors(tmp_path):
    snap = _snapshot(tmp_path / "s")
    runner = CliRunner()
    for args in (["eval", "run", "--snapshot", str(tmp_path / "nope"), "--agent", "abstain", "--out", str(tmp_path / "a")],
                 ["eval", "serve", "--snapshot", str(tmp_path / "nope"), "--out", str(tmp_path / "a"), "--port", "0"],
                 ["eval", "score", "--snapshot", str(tmp_path / "nope"), "--forecasts", str(snap / "manifest.json"),
                  "--out", str(tmp_path / "a")],
                 ["eval", "run", "--snapshot", str(snap), "--agent", "json:JSONDecoder", "--out", str(tmp_path / "a")]):
        result = runner.invoke(cli, args)
        assert result.exit_code == 1 and result.output.startswith("Error: "), args
        assert result.output.strip().count("\n") == 0 and "Traceback" not in result.output
    assert not (tmp_path / "a").exists()
