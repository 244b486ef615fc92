"""``eval harness``: a CLI agent (Claude Code, Codex, OpenCode, a script) replayed in its own
harness, reaching the replay through the MCP server that this process runs on loopback.

Per day (``per-day``, the default) the command runs once in the run's workspace, a folder that
holds only what the agent may see: the day's open questions (``questions.json``, read-only, no
answers), the day's task (``PROMPT.md``) and its memory notes (``memory/``); never a snapshot
file. The MCP configs the CLIs read (``config/claude-mcp.json`` for Claude Code,
``config/codex-config.toml`` for Codex, ``config/opencode.json`` for OpenCode), pointing at the
server's URL with the CLIs' own web tools off, are beside it, outside the folder a CLI reads
project config from; the command gets their paths in its environment. The agent runs as the
same user and can write all of it: the harness owns its files (written again each day, never
through a link), ends every process the command started (``confine``) and caps its logs
(``agent_log``); docs/agent-confinement.md. A day ends when the command
exits (or calls ``next_day``); a command that fails or runs past ``timeout_s`` is recorded and
the replay goes on the next day. In ``session`` mode the command runs once for the whole replay
and moves the clock itself with ``next_day``; one that exits early, or leaves a day unfinished
for ``timeout_s``, is recorded for that day, and started again on the next.

A day whose command exited 0 (or ended a session's day) without one pastcast tool call is
``no_tools``, not ``ok``: a CLI that cannot reach the MCP server runs on without its tools and
exits 0, and that is almost always what happened (docs/harness.md).

The run folder is ``eval run``'s (ledger.jsonl, scores.parquet, run.json) plus ``harness.json``
(each day: status, exit code, wall time, tool calls by name, forecasts; the failed, timed-out and
no-tools days), ``logs/`` (each day's output of the command) and ``config/``.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pastcast.evaluate import confined_fs
from pastcast.evaluate.agent_log import LOG_CAP_BYTES, CappedLog
from pastcast.evaluate.confine import Subreaper, children, end_all
from pastcast.evaluate.mcp_server import SERVER_NAME, HttpServer, bind
from pastcast.evaluate.policies import WakePolicy
from pastcast.evaluate.run_folder import CONFIG, HARNESS, LOGS, WORKSPACE
from pastcast.evaluate.session import ReplaySession

MODES = ("per-day", "session")
KILL_GRACE_S = 5.0  # after SIGTERM, before SIGKILL
POLL_S = 0.1
OK, NO_TOOLS, FAILED, TIMED_OUT = "ok", "no_tools", "failed", "timed_out"  # a day's status

PROMPT = """# pastcast: forecast day {date}

You are forecasting on a replay of the past. Today is {date} (simulated); you can only see
what was published by the end of today (UTC). Your tools are on the MCP server "{server}":
state, list_questions, search_news, search_posts, market_consensus, submit_forecast,
resolved_questions, memory_write, memory_read, next_day, sleep, wake_on, wake_every,
wake_on_weekdays, wake_at, triggers, clear_triggers.

1. Read the open questions (list_questions; also questions.json in this folder).
2. Research them with search_news / search_posts (and market_consensus where there is a market).
3. submit_forecast for each question you can: {{outcome: probability}}, outcomes written as the
   answer would be, probabilities summing to at most 1. A later forecast replaces an earlier one.
4. Keep notes for later days with memory_write (memory_read lists them).
   When state says the policy is "agent", choose when you are woken next: sleep, wake_on (a
   keyword watcher), wake_every, wake_on_weekdays, wake_at; triggers lists them.
{ending}
"""
ENDING = {
    "per-day": "5. Stop when you are done for today: the harness moves to the next day.",
    "session": "5. Call next_day to end each day, until it answers done: true.",
}


@dataclass
class Day:
    date: str
    status: str  # ok, no_tools (ran, ended, no tool call), failed, timed_out
    exit_code: int | None
    wall_s: float
    tool_calls: dict[str, int]
    forecasts: int
    restarts: int = 0


@dataclass
class HarnessResult:
    summary: dict
    days: list[Day] = field(default_factory=list)

    @property
    def failed(self) -> list[str]:
        return [d.date for d in self.days if d.status == FAILED]

    @property
    def timed_out(self) -> list[str]:
        return [d.date for d in self.days if d.status == TIMED_OUT]

    @property
    def no_tools(self) -> list[str]:
        return [d.date for d in self.days if d.status == NO_TOOLS]


def no_tools_message(no_tools: int, days: int) -> str | None:
    """What a run with ``no_tools`` days (out of ``days``) tells its user, or None."""
    if not no_tools:
        return None
    return (f"{no_tools} of {days} days made no pastcast tool call (no_tools): the CLI most likely did not "
            f"reach the MCP server; check its MCP config and flags (docs/harness.md)")


def mcp_configs(url: str) -> dict[str, str]:
    """The MCP configs each CLI reads, by file name in the run's ``config/`` folder, outside the
    workspace: the agent can write its workspace, and a CLI reads project config from the folder
    it starts in (README: the flags that go with each). Web search and fetch are off in each."""
    claude = {"mcpServers": {SERVER_NAME: {"type": "http", "url": url}}}
    opencode = {"$schema": "https://opencode.ai/config.json",
                "mcp": {SERVER_NAME: {"type": "remote", "url": url, "enabled": True, "oauth": False,
                                      "timeout": 30000}},
                "permission": {"*": "deny", "read": "allow", "edit": "allow", "glob": "allow", "grep": "allow",
                               "list": "allow", f"{SERVER_NAME}_*": "allow", "bash": "deny", "webfetch": "deny",
                               "websearch": "deny", "codesearch": "deny", "external_directory": "deny"},
                "share": "disabled", "autoupdate": False}
    codex = (f'web_search = "disabled"\nsandbox_mode = "workspace-write"\n\n[sandbox_workspace_write]\n'
             f'network_access = false\n\n[mcp_servers.{SERVER_NAME}]\nurl = "{url}"\nrequired = true\n'
             'default_tools_approval_mode = "approve"\n')
    return {"claude-mcp.json": json.dumps(claude, indent=2) + "\n",
            "opencode.json": json.dumps(opencode, indent=2) + "\n", "codex-config.toml": codex}


class Workspace:
    """The folder the agent runs in (only what it may see), and the CLIs' configs beside it.

    Its files are the harness's: each day they are written again from the harness's own state,
    replacing whatever the agent put there (a folder, a link, a file it changed), through
    descriptors that follow no link (confined_fs), so nothing the agent does to them stops the
    harness or makes it write anywhere else. What went wrong anyway is kept in ``problems``."""

    def __init__(self, folder: Path, config: Path, url: str, mode: str):
        self.folder, self.config, self.url, self.mode = folder, config, url, mode
        self.memory = folder / "memory"
        self.root = Path(os.path.realpath(folder.parent))  # the run folder; nothing below it is followed
        self.configs = mcp_configs(url)  # kept here: the files on disk are the agent's to spoil
        self.problems: list[str] = []
        folder.parent.mkdir(parents=True, exist_ok=True)
        self._write(config.name, self.configs)
        try:  # the agent's notes folder: made if missing, left as the agent left it otherwise
            os.close(self._open(folder.name, "memory", repair=False))
        except (OSError, ValueError):
            pass

    def _open(self, *parts: str, repair: bool = True) -> int:
        root = confined_fs.open_root(self.root)
        try:
            return confined_fs.walk(root, parts, create=True, repair=repair)
        finally:
            os.close(root)

    def _write(self, folder: str, files: dict[str, str], mode: int = 0o644) -> None:
        try:
            fd = self._open(folder)
            try:
                for name, text in files.items():
                    confined_fs.write_file(fd, name, text.encode("utf-8"), mode=mode, replace_any=True)
            finally:
                os.close(fd)
        except (OSError, ValueError) as exc:  # recorded; the replay goes on
            self.problems.append(f"{folder}/{', '.join(files)}: {exc}")

    def show_day(self, session: ReplaySession) -> None:
        """The day's task and open questions (read-only: the agent answers through the tools),
        and the configs again."""
        today = session.state()["date"]
        questions = session.questions()
        self._write(self.folder.name, {"questions.json": json.dumps(questions, indent=2, ensure_ascii=False) + "\n"},
                    mode=0o444)
        self._write(self.folder.name, {"PROMPT.md": PROMPT.format(date=today, server=SERVER_NAME,
                                                                  ending=ENDING[self.mode])})
        self._write(self.config.name, self.configs)

    def ensure(self) -> None:
        """The workspace a folder again (an agent may have removed it, or made it a link)."""
        try:
            os.close(self._open(self.folder.name))
        except (OSError, ValueError) as exc:
            self.problems.append(f"{self.folder.name}: {exc}")

    def open_log(self, logs: str, name: str) -> int:
        """``logs/name`` opened to append, never through a link."""
        fd = self._open(logs)
        try:
            return confined_fs.open_append(fd, name)
        finally:
            os.close(fd)

    def environment(self, session: ReplaySession) -> dict[str, str]:
        """The command's environment: the user's less pastcast's own settings (they name its
        folders: caches, runs), plus where the server and the configs are (OpenCode takes its
        config inline, where it outranks any file in the workspace)."""
        own = {k: v for k, v in os.environ.items() if not k.startswith("PASTCAST_")}
        return {**own, "PASTCAST_MCP_URL": self.url, "PASTCAST_DATE": session.state()["date"],
                "PASTCAST_WORKSPACE": str(self.folder), "PASTCAST_PROMPT_FILE": str(self.folder / "PROMPT.md"),
                "PASTCAST_MCP_CONFIG": str(self.config / "claude-mcp.json"),
                "PASTCAST_CODEX_CONFIG": str(self.config / "codex-config.toml"),
                "OPENCODE_CONFIG_CONTENT": self.configs["opencode.json"]}


class _AgentProcess(subprocess.Popen):
    """The command's process, with what ending it needs: the harness's children that are not
    the agent's (there before it started) and its capped log."""

    others: set[int]
    log: CappedLog
    stopped = False


def _stop(proc: _AgentProcess) -> None:
    """End the command and every process it started, daemons and ``setsid`` children too
    (confine.end_all: SIGTERM, a grace period, SIGKILL to whatever is left, all reaped), then
    close its log."""
    if proc.stopped:
        return
    proc.stopped = True
    try:
        end_all(proc, proc.others, KILL_GRACE_S)
    finally:
        proc.log.close()


class _Agent:
    """The command, started in the workspace in a process group of its own, its output into a
    capped log (``LOG_CAP_BYTES``)."""

    def __init__(self, command: str, workspace: Workspace, logs: Path):
        self.command, self.workspace, self.logs = command, workspace, logs

    def start(self, session: ReplaySession) -> _AgentProcess:
        log = CappedLog(self.workspace.open_log(self.logs.name, f"{session.state()['date']}.log"), LOG_CAP_BYTES)
        others = children()  # not the agent's: whatever this process runs already
        self.workspace.ensure()  # it starts there, whatever the last command did to it
        try:
            proc = _AgentProcess(self.command, shell=True, cwd=self.workspace.folder,
                                 env=self.workspace.environment(session), stdin=subprocess.DEVNULL,
                                 stdout=log.writer, stderr=subprocess.STDOUT, start_new_session=True)
        except BaseException:
            log.close()
            raise
        log.after_start()
        proc.others, proc.log = others, log
        return proc


def _day_record(session: ReplaySession, day: str, status: str, code: int | None, wall: float,
                restarts: int = 0) -> Day:
    """The day's record; one that ended (exit 0, or ended by the agent) without a single tool
    call is ``no_tools``: the command ran, but never reached the server."""
    calls, forecasts = session.day_stats(day)
    if not calls and (status == OK or status == FAILED and code == 0):
        status = NO_TOOLS
    return Day(day, status, code, round(wall, 3), calls, forecasts, restarts)


def run_harness(snapshot_dir: str | os.PathLike, out_dir: str | os.PathLike, command: str, mode: str = "per-day",
                timeout_s: float = 600.0, agent_name: str = "cli-agent", policy: WakePolicy | None = None,
                force: bool = False, on_day: Callable[[Day], None] | None = None,
                resume: bool = False) -> HarnessResult:
    """Replay ``snapshot_dir`` to the CLI agent ``command`` (a shell command line) and score it.

    ``resume`` continues a stopped run in ``out_dir``: its finished days kept as recorded, the
    day it stopped on run again from its start (that day's forecasts dropped), its notes kept."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if not command.strip():
        raise ValueError("the agent's command is empty")
    try:
        program = shlex.split(command)[0]
    except ValueError as exc:
        raise ValueError(f"the agent's command cannot be parsed: {exc}") from None
    if not timeout_s > 0:
        raise ValueError(f"timeout_s must be above 0, got {timeout_s}")
    out_dir = Path(out_dir)
    sock = bind(0)
    try:
        session = ReplaySession(snapshot_dir, out_dir, agent_name, force=force, policy=policy,
                                memory_dir=out_dir / WORKSPACE / "memory", hold_folder=True,
                                extra={"harness": {"mode": mode, "program": program, "timeout_s": timeout_s}},
                                resume=resume, restart_day=True)
    except BaseException:
        sock.close()
        raise
    # the days a resumed run finished (the one it stopped on is run again), kept with its progress
    today = session.env.today.isoformat()
    days: list[Day] = [Day(**d) for d in session.kept.get("harness_days", []) if d["date"] < today]
    told = on_day

    def on_day(day: Day) -> None:
        session.keep("harness_days", [vars(d) for d in days])
        if told:
            told(day)
    server = None
    try:
        server = HttpServer(session, sock).start()
        workspace = Workspace(out_dir / WORKSPACE, out_dir / CONFIG, server.url, mode)
        workspace.show_day(session)
        session.on_wake = lambda: workspace.show_day(session)  # rewritten before next_day answers
        agent = _Agent(command, workspace, out_dir / LOGS)
        drive = _per_day if mode == "per-day" else _one_session
        with Subreaper():  # orphans of the agent come back to this process, to be ended
            drive(session, agent, timeout_s, days, on_day)
        if session.result is None:
            session.finish()
        server.stop()
        _write_record(out_dir, days, session, workspace)  # while the run folder is still this run's
    except BaseException:
        if server is not None:
            server.stop()
        else:
            sock.close()
        session.close()
        raise
    session.close()  # scored: frees the folder
    return HarnessResult(session.result.summary, days)


def _note(days: list[Day], day: Day, on_day: Callable[[Day], None] | None) -> None:
    days.append(day)
    if on_day:
        on_day(day)


def _per_day(session: ReplaySession, agent: _Agent, timeout_s: float, days: list[Day],
             on_day: Callable[[Day], None] | None) -> None:
    while not session.env.done:
        day = session.state()["date"]
        started = time.monotonic()
        proc = agent.start(session)
        status, code, ended_at = None, None, None
        try:
            while (code := proc.poll()) is None:
                now = time.monotonic()
                if now - started > timeout_s:
                    status = TIMED_OUT
                    break
                if session.state()["date"] != day:  # it called next_day: its day is over
                    ended_at = ended_at or now
                    if now - ended_at > KILL_GRACE_S:
                        break
                time.sleep(POLL_S)
        finally:
            _stop(proc)  # whatever is left of it, children too
        if status is None:
            status = OK if code == 0 or ended_at is not None else FAILED
        _note(days, _day_record(session, day, status, code, time.monotonic() - started), on_day)
        session.advance_if_today(day)  # the agent did not end its day: the harness does


def _one_session(session: ReplaySession, agent: _Agent, timeout_s: float, days: list[Day],
                 on_day: Callable[[Day], None] | None) -> None:
    restarts = 0
    while not session.env.done:
        day = session.state()["date"]
        proc = agent.start(session)
        day_started = time.monotonic()
        try:
            while True:
                code = proc.poll()
                today = session.state()["date"]
                if session.env.done or today != day:  # the agent ended its day (and maybe more)
                    _note_days_ended(session, day, today, day_started, restarts, days, on_day)
                    if session.env.done:
                        break
                    day, day_started = today, session.wake_times()[1].get(today, time.monotonic())
                    continue
                if code is not None:  # it stopped with the replay unfinished: the day failed
                    _note(days, _day_record(session, day, FAILED, code, time.monotonic() - day_started,
                                            restarts), on_day)
                    break
                if time.monotonic() - day_started > timeout_s:
                    _stop(proc)
                    _note(days, _day_record(session, day, TIMED_OUT, None, time.monotonic() - day_started,
                                            restarts), on_day)
                    break
                time.sleep(POLL_S)
            if session.env.done and proc.poll() is None:  # the replay is over: so is its session
                try:
                    proc.wait(KILL_GRACE_S)
                except subprocess.TimeoutExpired:
                    pass
        finally:
            _stop(proc)
        session.advance_if_today(day)
        restarts += 1


def _note_days_ended(session: ReplaySession, day: str, today: str, day_started: float, restarts: int,
                     days: list[Day], on_day: Callable[[Day], None] | None) -> None:
    """Every wake day from ``day`` to before ``today`` ended ok (a quick agent may end several
    between two looks): each one's wall time runs from its wake to the next."""
    wakes, woken_at = session.wake_times()
    ended = [w for w in wakes if day <= w < today] or [day]
    now = time.monotonic()
    for i, wake in enumerate(ended):
        began = day_started if i == 0 else woken_at.get(wake, now)
        until = woken_at.get(ended[i + 1], now) if i + 1 < len(ended) else woken_at.get(today, now)
        _note(days, _day_record(session, wake, OK, None, max(0.0, until - began), restarts), on_day)


def _write_record(out_dir: Path, days: list[Day], session: ReplaySession, workspace: Workspace) -> None:
    record = {"days": [vars(d) for d in days], "tool_calls": dict(sorted(session.tool_calls.items())),
              "forecasts": len(session.env.ledger), "agent_days": len(days),
              "failed_days": [d.date for d in days if d.status == FAILED],
              "timed_out_days": [d.date for d in days if d.status == TIMED_OUT],
              "no_tools_days": [d.date for d in days if d.status == NO_TOOLS],
              "wall_s": round(sum(d.wall_s for d in days), 3),
              **({"workspace_problems": workspace.problems} if workspace.problems else {})}
    warning = no_tools_message(len(record["no_tools_days"]), len(days))
    if warning:
        record["no_tools_warning"] = warning
    # the run folder is the agent's to write too: written through a descriptor, never a link
    root = confined_fs.open_root(workspace.root)
    try:
        confined_fs.write_file(root, HARNESS, (json.dumps(record, indent=2, default=str) + "\n").encode(),
                               replace_any=True)
    finally:
        os.close(root)
