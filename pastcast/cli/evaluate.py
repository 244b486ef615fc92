"""``pastcast eval``: replay a snapshot to an agent (in-process or served over HTTP), score
external forecasts, and compare finished runs (leaderboard, paired comparison, aggregate, HTML
report), over ``pastcast.evaluate``."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table

from pastcast.cli._shared import console, out, progress, reason_table, user_errors


@click.group("eval")
def eval_group() -> None:
    """Replay a snapshot to agents and score them."""


@eval_group.command("run")
@click.option("--snapshot", "snapshot_ref", required=True,
              help="Snapshot folder, NAME (its latest) or NAME/vN.")
@click.option("--agent", required=True,
              help="Bundled agent (abstain, retrieval, market, llm) or your own as package.module:ClassName.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Run folder: ledger.jsonl, scores.parquet, run.json.")
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
@click.option("--resume", is_flag=True,
              help="Continue an interrupted run in OUT after its last finished day (its forecasts are "
                   "replayed from the partial ledger); the scores equal an uninterrupted run's.")
@click.option("--force", is_flag=True, help="Replace a run already in OUT (without it, OUT holding a run is refused).")
@click.option("--policy", default="daily", show_default=True,
              help="When the agent wakes: daily, sleep (the agent calls env.sleep), agent (the triggers the agent "
                   "sets in env.triggers: docs/agent-triggers.md), cron:N (every N days), cron:mon,thu, "
                   "watcher:word,word (new articles matching a word).")
@click.option("--deadline-guard", "deadline_days", type=int, default=0, show_default=True,
              help="Also wake when an open question without a forecast closes within N days (0: off).")
@click.option("--judge-model", default=None,
              help="An LLM also rules on outcomes the matching rules rejected but that may name the answer "
                   "(verdicts cached, logged in match_verdicts.jsonl).")
def eval_run(snapshot_ref: str, agent: str, out_dir: str, root: str, resume: bool, force: bool, policy: str,
             deadline_days: int, judge_model: str | None) -> None:
    """Replay SNAPSHOT day by day to AGENT and score its forecasts."""
    from pastcast.evaluate.agents import get_agent
    from pastcast.evaluate.leaderboard import leaderboard, render_leaderboard
    from pastcast.evaluate.policies import parse_policy
    from pastcast.evaluate.runner import run_eval
    from pastcast.snapshot import resolve

    try:
        wake = parse_policy(policy, deadline_days)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--policy") from exc
    if resume and force:
        raise click.BadParameter("--resume continues a run, --force replaces it: pass one", param_hint="--force")
    with user_errors():
        folder = resolve(snapshot_ref, root)
    with user_errors(ValueError, TypeError):  # an unknown agent, a class without act(env)
        the_agent = get_agent(agent)
    with progress() as bar:
        task = bar.add_task(f"replaying {folder} to {agent}", total=None)

        def tick(i: int, n: int, day) -> None:
            bar.update(task, completed=i, total=n, description=f"{agent}: {day}")

        with user_errors():
            judge = None
            if judge_model:
                from pastcast.llm import LLMSettings

                judge = LLMSettings.from_env(model=judge_model)
            run_eval(folder, the_agent, out_dir, progress=tick, resume=resume, policy=wake, judge=judge,
                     force=force)
    click.echo(render_leaderboard(leaderboard([out_dir])))


@eval_group.command("serve")
@click.option("--snapshot", "snapshot_ref", required=True, help="Snapshot folder, NAME (its latest) or NAME/vN.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Run folder: ledger.jsonl, scores.parquet, run.json once the replay ends.")
@click.option("--port", type=int, default=8765, show_default=True, help="Port on 127.0.0.1 (0: any free one).")
@click.option("--agent-name", default="external", show_default=True, help="The name the run is scored under.")
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
@click.option("--force", is_flag=True, help="Replace a run already in OUT (without it, OUT holding a run is refused).")
@click.option("--resume", is_flag=True,
              help="Continue the stopped run in OUT: its forecasts replayed, the clock back on the day it stopped on.")
@click.option("--request-timeout", type=click.FloatRange(min=0, min_open=True), default=60.0, show_default=True,
              help="Seconds a connection may stall (a body not sent in time gets 408; an idle connection closes).")
@click.option("--policy", default=None,
              help="When the agent wakes (as for `eval mcp`): daily, sleep, agent (the triggers the agent sets: "
                   "POST /v1/sleep, /v1/wake_on, ...), cron:N, cron:mon,thu, watcher:word,word; default: "
                   "daily, recorded as external.")
@click.option("--deadline-guard", "deadline_days", type=int, default=0, show_default=True,
              help="Also wake when an open question without a forecast closes within N days (0: off).")
def eval_serve(snapshot_ref: str, out_dir: str, port: int, agent_name: str, root: str, force: bool,
               resume: bool, request_timeout: float, policy: str | None, deadline_days: int) -> None:
    """Serve the replay of SNAPSHOT over HTTP on loopback, for an agent in another process.

    \b
    This process holds the answers; a client gets only the current day's tools:
      GET /v1/state, /v1/questions, /v1/search?query=..&k=.., /v1/search_posts, /v1/market?question_id=..,
      /v1/resolved, /v1/triggers; POST /v1/forecast {"question_id", "forecast": {outcome: p}},
      /v1/advance {"days": 1}; with --policy agent POST /v1/sleep, /v1/wake_on, /v1/wake_every,
      /v1/wake_on_weekdays, /v1/wake_at, /v1/clear_triggers (docs/agent-triggers.md).
    Advancing past the window's end scores the run like `eval run`; then the server stops.
    Stopped earlier (Ctrl-C, SIGTERM, SIGHUP), a run without a forecast leaves nothing in OUT;
    one with forecasts is continued with --resume.
    """
    from pastcast.cli._signals import stop_on_signals
    from pastcast.evaluate.run_folder import PARTIAL
    from pastcast.evaluate.serve import make_server
    from pastcast.snapshot import resolve

    from pastcast.evaluate.policies import parse_policy

    wake = None
    if policy is not None or deadline_days > 0:
        try:
            wake = parse_policy(policy or "daily", deadline_days)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--policy") from exc
    if resume and force:
        raise click.BadParameter("--resume continues a run, --force replaces it: pass one", param_hint="--force")
    stop_on_signals()
    with user_errors():  # the port is bound before OUT is claimed: a busy port leaves nothing behind
        server, run = make_server(resolve(snapshot_ref, root), out_dir, port, agent_name, force=force,
                                  timeout=request_timeout, resume=resume, policy=wake)
    host, bound = server.server_address[:2]
    console.print(f"serving {run.snapshot_dir} at http://{host}:{bound}/v1 (Ctrl-C to stop)")

    def stop_when_done() -> None:
        import time

        while run.result is None:
            time.sleep(0.2)
        server.shutdown()

    import threading

    threading.Thread(target=stop_when_done, daemon=True).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        if run.close():
            console.print(f"the replay did not finish: its forecasts are in {Path(out_dir) / PARTIAL} "
                          f"(--resume continues the run, --force replaces it)")
    if run.result is not None:
        click.echo(render_summary(run.result.summary))


def render_summary(summary: dict) -> str:
    return (f"{summary['questions']} questions, {summary['forecast']} forecast; mean BSS {summary['mean_bss']:+.3f}, "
            f"accuracy {summary['accuracy']:.3f}, time-weighted BSS {summary['time_weighted_bss']:+.3f}")


@eval_group.command("report")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
@click.option("--out", "out_file", required=True, type=click.Path(dir_okay=False),
              help="The HTML file to write (self-contained: open it from disk).")
@click.option("--title", default="pastcast evaluation report", show_default=True)
def eval_report(run_dirs: tuple[str, ...], out_file: str, title: str) -> None:
    """A static HTML report across RUN_DIRS, one file: leaderboard with 95% intervals, score over
    simulated time, calibration with bin counts, score by category and by source, wakes and cost
    against score (when the runs differ), and a sortable table of every question."""
    from pastcast.evaluate.report import render_report
    from pastcast.io import write_text

    path = write_text(render_report(list(run_dirs), title), out_file)
    out.print(f"report: {path}")


@eval_group.command("compare")
@click.argument("run_a", type=click.Path(exists=True, file_okay=False))
@click.argument("run_b", type=click.Path(exists=True, file_okay=False))
def eval_compare(run_a: str, run_b: str) -> None:
    """Paired comparison of RUN_A against RUN_B on the questions both scored: mean difference
    with its bootstrap 95% interval, and wins/ties/losses of A, per metric."""
    from pastcast.evaluate.aggregate import compare_runs

    with user_errors():
        results = compare_runs(run_a, run_b)
    table = Table("metric", "questions", "A", "B", "A - B", "95% CI", "A wins / ties / losses",
                  title=f"{run_a} vs {run_b}")
    for r in results:
        ci = f"[{r['ci'][0]:+.3f}, {r['ci'][1]:+.3f}]" if r["n"] else "-"
        table.add_row(r["metric"], str(r["n"]), _signed(r["mean_a"]), _signed(r["mean_b"]), _signed(r["mean_diff"]),
                      ci, f"{r['wins']} / {r['ties']} / {r['losses']}")
    out.print(table)


@eval_group.command("aggregate")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
@click.option("--out", "out_file", default=None, type=click.Path(dir_okay=False),
              help="Also write the aggregate's final forecasts as JSON lines (for `eval score`).")
def eval_aggregate(run_dirs: tuple[str, ...], out_file: str | None) -> None:
    """Peer-relative scores of RUN_DIRS (runs of one snapshot) and the coordinate-wise
    aggregate of their final forecasts, scored like an agent."""
    from pastcast.evaluate.aggregate import aggregate_runs

    with user_errors():
        result = aggregate_runs(run_dirs)
    table = Table("run", "agent", "mean BSS", "peer-relative BSS", title="peers and their aggregate")
    for p in result.peers:
        table.add_row(p.run, p.agent, _signed(p.mean_bss), _signed(p.peer_relative_bss))
    table.add_row("(aggregate)", "mean of the final forecasts", _signed(result.mean_bss), "-")
    out.print(table)
    if out_file:
        result.write_forecasts(out_file)


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"


@eval_group.command("leaderboard")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
def eval_leaderboard(run_dirs: tuple[str, ...]) -> None:
    """A leaderboard table across RUN_DIRS."""
    from pastcast.evaluate.leaderboard import leaderboard, render_leaderboard

    click.echo(render_leaderboard(leaderboard(list(run_dirs))))


@eval_group.command("score")
@click.option("--snapshot", "snapshot_ref", required=True,
              help="Snapshot folder, NAME (its latest) or NAME/vN.")
@click.option("--forecasts", "forecasts_file", required=True, type=click.Path(exists=True, dir_okay=False),
              help='JSON lines: {"question_id": ..., "date": "YYYY-MM-DD", "forecast": {"outcome": p}}.')
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Run folder: ledger.jsonl, rejected.jsonl, scores.parquet, run.json.")
@click.option("--agent", default=None, help='Agent name (default: the one the lines name, else "external").')
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
@click.option("--force", is_flag=True, help="Replace a run already in OUT (without it, OUT holding a run is refused).")
def eval_score(snapshot_ref: str, forecasts_file: str, out_dir: str, agent: str | None, root: str,
               force: bool) -> None:
    """Score an external agent's FORECASTS (JSON lines) on SNAPSHOT as `eval run` would."""
    from pastcast.evaluate.external import score_external
    from pastcast.evaluate.leaderboard import leaderboard, render_leaderboard
    from pastcast.snapshot import resolve

    with user_errors():
        result = score_external(resolve(snapshot_ref, root), forecasts_file, out_dir, agent=agent, force=force)
    run = result.run
    console.print(f"{run['accepted']} forecasts accepted, {run['rejected']} rejected"
                  + (f" (see {Path(out_dir) / 'rejected.jsonl'})" if run["rejected"] else "")
                  + (f"; {run['repeats']} exact repeats counted once" if run["repeats"] else ""))
    if run["rejected_by_reason"]:
        console.print(reason_table("rejected", run["rejected_by_reason"]))
    click.echo(render_leaderboard(leaderboard([out_dir])))

