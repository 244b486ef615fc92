"""``pastcast eval mcp`` and ``pastcast eval harness``: agents in their native harnesses (CLI
agents over MCP), over ``pastcast.evaluate.mcp_server`` and ``pastcast.evaluate.harness``."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pastcast.cli._shared import console, user_errors
from pastcast.cli._signals import stop_on_signals

SNAPSHOT_HELP = "Snapshot folder, NAME (its latest) or NAME/vN."
POLICY_HELP = ("When the agent wakes: daily, sleep (next_day's days set the next wake), agent (the triggers the agent "
               "sets with the sleep, wake_on, wake_every, wake_on_weekdays, wake_at tools: docs/agent-triggers.md), "
               "cron:N (every N days), cron:mon,thu, watcher:word,word (new articles matching a word); next_day "
               "moves to the next wake.")


def _policy(spec: str, deadline_days: int):
    from pastcast.evaluate.policies import parse_policy

    try:
        return parse_policy(spec, deadline_days)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--policy") from exc


def _one_of(resume: bool, force: bool) -> None:
    if resume and force:
        raise click.BadParameter("--resume continues a run, --force replaces it: pass one", param_hint="--force")


def _summary_line(summary: dict) -> str:
    return (f"{summary.get('questions', 0)} questions, {summary.get('forecast', 0)} forecast, "
            f"mean BSS {summary.get('mean_bss', 0.0):+.3f}")


def _common(command):
    options = [
        click.option("--snapshot", "snapshot_ref", required=True, help=SNAPSHOT_HELP),
        click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
                     help="Run folder: ledger.jsonl, scores.parquet, run.json once the replay ends."),
        click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False)),
        click.option("--force", is_flag=True,
                     help="Replace a run already in OUT, its memory and workspace too (without it, OUT holding a "
                          "run is refused)."),
        click.option("--resume", is_flag=True,
                     help="Continue the stopped run in OUT: its forecasts replayed, the clock back on the day it "
                          "stopped on, its notes kept (docs/resuming-runs.md)."),
        click.option("--policy", default="daily", show_default=True, help=POLICY_HELP),
        click.option("--deadline-guard", "deadline_days", type=int, default=0, show_default=True,
                     help="Also wake when an open question without a forecast closes within N days (0: off)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@click.command("mcp")
@_common
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio: the client starts this command; http: streamable HTTP on 127.0.0.1.")
@click.option("--port", type=int, default=8766, show_default=True, help="With --transport http (0: any free port).")
@click.option("--agent-name", default="mcp-agent", show_default=True, help="The name the run is scored under.")
def eval_mcp(snapshot_ref: str, out_dir: str, root: str, force: bool, resume: bool, policy: str,
             deadline_days: int, transport: str, port: int, agent_name: str) -> None:
    """Serve the replay of SNAPSHOT as an MCP server, for an agent in its own harness.

    \b
    Tools (JSON results): state, list_questions, search_news(query, k, from_date, to_date,
    full_text), search_posts, market_consensus(question_id), submit_forecast(question_id,
    outcomes), resolved_questions, next_day(days), memory_write(name, text, append),
    memory_read(name), and the triggers of --policy agent: sleep(days), wake_on(keywords,
    min_hits), wake_every(days), wake_on_weekdays(weekdays), wake_at(dates), triggers,
    clear_triggers. This process holds the answers; the agent sees only the simulated day.
    When next_day passes the window's end the run is scored like `eval run`. Stopped earlier
    (Ctrl-C, SIGTERM, SIGHUP, the client gone), a run without a forecast leaves nothing in OUT;
    one with forecasts is continued with --resume. Over stdio, a replay that cannot be served
    (OUT holds a run: --resume or --force) is an error on stderr and, to the client, a server
    whose instructions and one tool (state) say why, until the client disconnects (exit code 1).
    """
    from pastcast.evaluate.mcp_server import HttpServer, bind, serve_stdio
    from pastcast.evaluate.session import ReplaySession
    from pastcast.snapshot import resolve

    wake = _policy(policy, deadline_days)
    _one_of(resume, force)
    stop_on_signals()
    sock = None
    if transport == "http":  # the port first: a busy one leaves nothing behind in OUT
        with user_errors(ValueError):
            sock = bind(port)
    try:
        with user_errors():
            session = ReplaySession(resolve(snapshot_ref, root), out_dir, agent_name, force=force, policy=wake,
                                    extra={"transport": f"mcp-{transport}"}, resume=resume)
    except BaseException as exc:
        if sock is not None:
            sock.close()
        if transport == "stdio" and isinstance(exc, click.ClickException) and not sys.stdin.isatty():
            _refuse_over_stdio(exc)  # a client started it: it is told why, not left without tools
        raise
    try:
        if transport == "stdio":
            console.print(f"pastcast MCP server on stdio: {session.snapshot_dir}, {session.env.start}.."
                          f"{session.env.end}, today {session.env.today}")
            try:
                serve_stdio(session)
            except KeyboardInterrupt:
                pass
        else:
            server = HttpServer(session, sock).start()
            console.print(f"pastcast MCP server at {server.url}: {session.snapshot_dir} (Ctrl-C to stop)")
            try:
                server.serve_until_done()
            except KeyboardInterrupt:
                server.stop()
    finally:
        if session.close():
            console.print(f"the replay did not finish: its forecasts are kept in {out_dir} (--resume continues "
                          f"the run, --force replaces it)")
    if session.result is not None:
        console.print(f"scored: {_summary_line(session.result.summary)}; run folder {out_dir}")


def _refuse_over_stdio(error: click.ClickException) -> None:
    """``eval mcp`` over stdio that cannot serve the replay: the error on stderr, then, for a
    client that does not show stderr, an MCP server whose instructions and one tool say it,
    until the client disconnects; exit code 1."""
    from pastcast.evaluate.mcp_server import serve_refusal_stdio

    reason = error.message
    if isinstance(error.__cause__, FileExistsError):  # the run folder holds a run
        reason += (". In the MCP client's config, add --resume (continue an unfinished run) or --force (replace "
                   "the run) to the `pastcast eval mcp` command, or give it a new --out folder, then restart "
                   "the client")
    else:
        reason += ". Fix the `pastcast eval mcp` command in the MCP client's config, then restart the client"
    click.echo(f"Error: {reason}", err=True)  # one line; then served to the client until it leaves
    try:
        serve_refusal_stdio(reason)
    except KeyboardInterrupt:
        pass
    raise SystemExit(1)


@click.command("harness")
@_common
@click.option("--command", "agent_command", required=True,
              help="The agent's shell command line, run in the workspace (env: PASTCAST_MCP_URL, PASTCAST_DATE, "
                   "PASTCAST_PROMPT_FILE, PASTCAST_WORKSPACE, PASTCAST_MCP_CONFIG, PASTCAST_CODEX_CONFIG, "
                   "OPENCODE_CONFIG_CONTENT); README: recipes for Claude Code, "
                   "Codex, OpenCode.")
@click.option("--per-day/--session", "per_day", default=True, show_default=True,
              help="Run the command once per simulated day, or once for the whole replay (it calls next_day).")
@click.option("--timeout-s", type=click.FloatRange(min=0, min_open=True), default=600.0, show_default=True,
              help="Seconds a day may take; then the command is stopped, the day recorded as timed out.")
@click.option("--agent-name", default="cli-agent", show_default=True, help="The name the run is scored under.")
def eval_harness(snapshot_ref: str, out_dir: str, root: str, force: bool, resume: bool, policy: str,
                 deadline_days: int, agent_command: str, per_day: bool, timeout_s: float, agent_name: str) -> None:
    """Replay SNAPSHOT to a CLI agent day by day, through an MCP server on loopback.

    The workspace (OUT/workspace) holds only what the agent may see: questions.json (read-only),
    PROMPT.md and memory/; the MCP configs of Claude Code, Codex and OpenCode are in OUT/config.
    A day the command fails or times out is recorded in OUT/harness.json and the replay goes on;
    a day it ends without one pastcast tool call is recorded as no_tools (docs/harness.md).
    """
    from pastcast.evaluate.harness import no_tools_message, run_harness
    from pastcast.snapshot import resolve

    wake = _policy(policy, deadline_days)
    _one_of(resume, force)
    with user_errors():
        folder = resolve(snapshot_ref, root)

    def on_day(day) -> None:
        calls = sum(day.tool_calls.values())
        console.print(f"{day.date}: {day.status}, {day.wall_s:.1f} s, {calls} tool calls, {day.forecasts} forecasts")

    stop_on_signals()  # a SIGTERM or SIGHUP ends the agent as Ctrl-C does
    try:
        with user_errors():
            result = run_harness(folder, out_dir, agent_command, mode="per-day" if per_day else "session",
                                 timeout_s=timeout_s, agent_name=agent_name, policy=wake, force=force,
                                 on_day=on_day, resume=resume)
    except KeyboardInterrupt:
        console.print(f"interrupted: the agent was stopped; forecasts so far are kept in {out_dir} "
                      "(--resume continues the run, --force replaces it)")
        raise SystemExit(130) from None
    failed = f", failed on {', '.join(result.failed)}" if result.failed else ""
    late = f", timed out on {', '.join(result.timed_out)}" if result.timed_out else ""
    idle = f", {len(result.no_tools)} without a tool call" if result.no_tools else ""
    click.echo(f"{len(result.days)} agent days{failed}{late}{idle}; {_summary_line(result.summary)}; "
               f"run folder {Path(out_dir)}")
    warning = no_tools_message(len(result.no_tools), len(result.days))
    if warning:
        click.echo(warning)
