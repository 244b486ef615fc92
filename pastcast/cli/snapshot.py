"""``pastcast snapshot``: list, show, verify, check, create, export, diff and gc snapshot versions,
over ``pastcast.snapshot``, ``pastcast.snapshot_checks``, ``pastcast.snapshot_assemble``,
``pastcast.snapshot_export``, ``pastcast.snapshot_diff`` and ``pastcast.snapshot_gc``."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.table import Table

from pastcast.cli._shared import console, out, print_checks, user_errors


@click.group()
def snapshot() -> None:
    """List, show, verify, check, create, export, diff and garbage-collect snapshot versions."""


@snapshot.command("list")
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
def snapshot_list(root: str) -> None:
    """Every snapshot version under ROOT, oldest first; * marks LATEST, "unpublished" a version
    whose blocking checks failed (LATEST never pointed at it)."""
    from pastcast.snapshot import list_snapshots

    with user_errors():
        df = list_snapshots(root)
    if df.is_empty():
        console.print(f"no snapshots under {Path(root).resolve()}; run `pastcast demo` first")
        return
    table = Table("name", "version", "parent", "created (UTC)", "window", "days built", "articles", "questions",
                  "drops", "path")
    for r in df.iter_rows(named=True):
        status = " *" if r["latest"] else ("" if r["published"] else " unpublished")
        table.add_row(r["name"], r["version"] + status, r["parent"], r["created_at"], r["window"],
                      r["partitions"] or "-", str(r["articles"]), str(r["questions"]), str(r["drops"]), r["path"])
    out.print(table)


@snapshot.command("show")
@click.argument("ref")
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
def snapshot_show(ref: str, root: str) -> None:
    """Print the manifest of REF (a folder, NAME for its latest, or NAME/vN)."""
    from pastcast.snapshot import read_manifest, resolve

    with user_errors():
        manifest = read_manifest(resolve(ref, root))
    out.print_json(json.dumps(manifest))


@snapshot.command("verify")
@click.argument("ref")
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
def snapshot_verify(ref: str, root: str) -> None:
    """Check that REF's files match the row counts and sha256 in its manifest."""
    from pastcast.snapshot import resolve, verify

    with user_errors():
        folder = resolve(ref, root)
        problems = verify(folder)
    for p in problems:
        console.print(f"[red]{p}[/]")
    if problems:
        raise SystemExit(1)
    out.print(f"{folder}: every table matches the manifest")


@snapshot.command("check")
@click.argument("ref")
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
@click.option("--publish", is_flag=True, help="Move LATEST to REF when every check passes.")
@click.option("--full", is_flag=True,
              help="Read every part of every table (default: a version with a published parent is checked "
                   "on the parts it adds; a first version always in full).")
def snapshot_check(ref: str, root: str, publish: bool, full: bool) -> None:
    """Run the blocking checks on REF (leaks, evidence, crawl bounds, unique ids, manifest);
    exit 1 when one fails."""
    from pastcast.snapshot import resolve
    from pastcast.snapshot_checks import publish_if_sound, run_blocking_checks

    with user_errors():
        folder = resolve(ref, root)
        outcomes = publish_if_sound(folder, full or None) if publish else run_blocking_checks(folder, full or None)
    if not print_checks(outcomes):
        raise SystemExit(1)
    out.print(f"{folder}: every blocking check passed" + (" (LATEST)" if publish else ""))


@snapshot.command("create")
@click.option("--questions", "questions_dir", required=True, type=click.Path(exists=True, file_okay=False),
              help="A `pastcast questions filter` --out folder: questions.parquet, drops.parquet, "
                   "evidence.parquet, quality.parquet, audit.md.")
@click.option("--articles", "articles_src", required=True, type=click.Path(exists=True),
              help="The articles the questions were filtered against: a folder of `ingest`/`dedup`, a "
                   "snapshot, or an articles Parquet file.")
@click.option("--markets", "markets_dir", default=None, type=click.Path(exists=True, file_okay=False),
              help="A folder with markets.parquet and market_prices.parquet (e.g. a ForecastBench "
                   "`questions import` folder): the market questions' markets.")
@click.option("--name", required=True, help="The snapshot's name: versions go to ROOT/NAME/vN.")
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
@click.option("--no-publish", is_flag=True, help="Write the version and run the checks; leave LATEST alone.")
def snapshot_create(questions_dir: str, articles_src: str, markets_dir: str | None, name: str, root: str,
                    no_publish: bool) -> None:
    """Write a new version of NAME from folders built step by step (generated or imported and
    filtered questions, their articles), run the blocking checks, and move LATEST to it when
    every check passes (exit 1 otherwise, the version kept unpublished), e.g.

    \b
      pastcast questions import --format openforesight peer.parquet --out of
      pastcast questions filter --questions of --articles dedup/ --out of-filtered
      pastcast snapshot create --questions of-filtered --articles dedup/ --name openforesight
      pastcast eval run --snapshot openforesight --agent retrieval --out runs/of
    """
    from pastcast.snapshot import is_unchanged_build, latest_version, read_manifest
    from pastcast.snapshot_assemble import assemble_snapshot
    from pastcast.snapshot_checks import publish_if_sound, run_blocking_checks

    with user_errors():
        parent = latest_version(root, name)
        folder = assemble_snapshot(questions_dir, articles_src, root, name, markets_dir)
    if is_unchanged_build(folder, parent):
        out.print(f"unchanged: the tables are {parent}'s, so no new version (LATEST stays {folder})")
        return
    tables = read_manifest(folder)["tables"]
    out.print(f"{folder}: {tables['articles']['rows']:,} articles, {tables['questions']['rows']:,} questions, "
              f"{tables['markets']['rows']:,} markets")
    if not print_checks(run_blocking_checks(folder) if no_publish else publish_if_sound(folder)):
        out.print(f"{folder} is not published: a blocking check failed")
        raise SystemExit(1)
    out.print(f"{folder}: every blocking check passed" + ("" if no_publish else " (LATEST)"))


@snapshot.command("export")
@click.argument("ref")
@click.option("--format", "fmt", required=True, type=click.Choice(["openforesight", "futuresim-news"]),
              help="openforesight: the questions as an OpenForesight split; futuresim-news: the articles "
                   "as FutureSim's YYYY/MM/DD/articles.jsonl tree.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Output folder.")
@click.option("--split", default="test", show_default=True,
              help="openforesight: the split's name, in {split}-00000-of-00001.parquet.")
@click.option("--force", is_flag=True, help="Replace OUT when it exists and is not empty.")
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
def snapshot_export(ref: str, fmt: str, out_dir: str, split: str, force: bool, root: str) -> None:
    """Write REF (a folder, NAME for its latest, or NAME/vN) in a peer benchmark's layout.

    \b
    OUT gets the files and export.json (snapshot, rows, what was left out), written beside OUT
    and renamed into place, e.g.
      pastcast snapshot export sample --format openforesight --out export/of
      pastcast questions import --format openforesight export/of --out reimported/
    """
    from pastcast.snapshot import resolve
    from pastcast.snapshot_export import export_snapshot

    with user_errors():
        folder = resolve(ref, root)
        result = export_snapshot(folder, fmt, out_dir, split=split, force=force)
    s = result.summary
    what = "questions" if fmt == "openforesight" else "articles"
    left = s.get("left_out")
    note = f" (left out: {left['archive']:,} archive pages, {left['undated']:,} undated)" if left else ""
    out.print(f"{folder} -> {result.out_dir}: {s['rows']:,} {what} in {s['files']:,} "
              f"file{'s' if s['files'] != 1 else ''}{note}")
    for name in list(result.files)[:3]:
        out.print(f"  {result.out_dir / name}", highlight=False)
    if len(result.files) > 3:
        out.print(f"  ... and {len(result.files) - 3:,} more")
    out.print(f"  {result.out_dir / 'export.json'}", highlight=False)


@snapshot.command("diff")
@click.argument("ref_a")
@click.argument("ref_b")
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the diff as JSON (for scripts).")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(min=0),
              help="Example ids shown per category.")
def snapshot_diff(ref_a: str, ref_b: str, root: str, as_json: bool, limit: int) -> None:
    """Compare REF_A (older) with REF_B (newer): questions and articles added, removed and
    changed, by reason, and the manifests (window, inputs, row counts, code version).

    Each REF is a folder, NAME for its latest, or NAME/vN.
    """
    from rich.markup import escape

    from pastcast.snapshot import open_snapshot
    from pastcast.snapshot_diff import diff_snapshots

    with user_errors(FileNotFoundError, ValueError):  # a table differing from its manifest is refused
        folders = [open_snapshot(ref, root) for ref in (ref_a, ref_b)]
    diff = diff_snapshots(*folders, title_limit=limit)
    result = diff.as_dict(limit)
    if as_json:
        click.echo(json.dumps(result, indent=2, default=str))
        return
    m = result["manifest"]
    out.print(f"[bold]A[/] {folders[0]}  ->  [bold]B[/] {folders[1]}")
    meta = Table("manifest", "A", "B", title="manifests")
    for key in ("version", "parent_version", "created_at", "code_version", "window", "partitions"):
        if key in m:
            a, b = (m[key][side] for side in ("a", "b"))
            if key == "window":
                a, b = (f"{w['start']}..{w['end']}" if isinstance(w, dict) else w for w in (a, b))
            style = "" if m[key]["same"] or key in ("version", "created_at") else "[yellow]"
            meta.add_row(key, f"{style}{a}", f"{style}{b}")
    inputs = m["inputs"]
    meta.add_row("inputs", str(inputs["a"]), f"{inputs['b']} (+{len(inputs['added'])} "
                 f"-{len(inputs['removed'])} ~{len(inputs['changed'])})")
    for table, rows in m["rows"].items():
        delta = f" ({rows['delta']:+,})" if rows["delta"] else ""
        meta.add_row(f"rows: {table}", f"{rows['a']:,}", f"{rows['b']:,}{delta}")
    out.print(meta)
    if m["drops_by_reason"]:
        out.print("drops by reason: " + "; ".join(
            f"{r} {d['a']:,} -> {d['b']:,}" for r, d in m["drops_by_reason"].items()))
    for label in ("added", "removed", "changed"):
        files = inputs[label]
        if files:
            more = f" (+{len(files) - limit} more)" if len(files) > limit else ""
            out.print(f"inputs {label}: {', '.join(files[:limit])}{more}")
    for kind, t in result["tables"].items():
        table = Table("change", "reason / column", "count", title=f"{kind} ({t['rows']['a']:,} -> {t['rows']['b']:,})")
        for label in ("added", "removed"):
            table.add_row(f"[bold]{label}[/]", "", f"[bold]{t[label]['count']:,}[/]")
            for reason, n in t[label]["by_reason"].items():
                table.add_row("", reason, f"{n:,}")
        table.add_row("[bold]changed[/]", "", f"[bold]{t['changed']['count']:,}[/]")
        for column, n in t["changed"]["by_column"].items():
            table.add_row("", column, f"{n:,}")
        out.print(table)
        if t["schema"]["columns_added"] or t["schema"]["columns_removed"]:
            out.print(f"{kind} schema: columns added {t['schema']['columns_added']}, "
                      f"removed {t['schema']['columns_removed']}")
        if kind != "questions" or not limit:
            continue
        for label in ("added", "removed", "changed"):
            for ex in t[label]["examples"]:
                why = ex.get("reason") or ", ".join(ex.get("columns", []))
                out.print(f"  {label:<8}{escape(ex['id'])}  [dim]{escape(why)}[/]  "
                          f"{escape(ex.get('title', ''))}", highlight=False)
    if diff.identical:
        out.print("no questions or articles added, removed or changed")



@snapshot.command("gc")
@click.argument("name")
@click.option("--keep", required=True, type=int, help="Published versions to keep (the newest; LATEST always).")
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
@click.option("--dry-run", is_flag=True, help="Say what would be removed; remove nothing.")
def snapshot_gc(name: str, keep: int, root: str, dry_run: bool) -> None:
    """Remove NAME's published versions beyond the newest KEEP, and the stored parts only they
    named (never a part a kept version needs; unpublished versions are left for a person), e.g.

    \b
      pastcast snapshot gc sample --keep 7 --dry-run
    """
    from pastcast.snapshot_gc import collect_garbage

    with user_errors():
        result = collect_garbage(root, name, keep, dry_run=dry_run)
    verb = "would remove" if dry_run else "removed"
    gone = ", ".join(result.removed_versions) or "no version"
    out.print(f"{Path(root) / name}: {verb} {gone} and {result.removed_parts:,} parts "
              f"({result.freed_bytes / 1e6:,.1f} MB); kept {', '.join(result.kept_versions) or 'none'}")


@snapshot.command("copy")
@click.argument("ref")
@click.argument("dest", type=click.Path(file_okay=False))
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
def snapshot_copy(ref: str, dest: str, root: str) -> None:
    """Copy REF with every part it names into DEST (another snapshot's folder, e.g.
    /mnt/share/sample): a version's folder alone holds its manifest, not its tables. Parts are
    hard-linked on the same file system; the copy is verified."""
    from pastcast.snapshot import copy_version, resolve, verify

    with user_errors():
        copied = copy_version(resolve(ref, root), dest)
        problems = verify(copied)
    for p in problems:
        console.print(f"[red]{p}[/]")
    if problems:
        raise SystemExit(1)
    out.print(f"{copied}: copied, every table matches the manifest")
