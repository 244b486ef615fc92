"""The import direction, as a contract that fails: stages import only earlier stages and the
shared layers below them (sources -> curate -> questions -> snapshot -> evaluate, then the
orchestration that runs them); the shared layers import no stage; questions and evaluate never
import each other; the library never imports Dagster; ``assets`` never imports ``pipelines``.

Every import counts, also one inside a function (a lazy import is still a dependency)."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PASTCAST = ROOT / "pastcast"

SHARED = 0
# rank of each top-level part of the package; a module may import its own rank, lower ranks
# and the shared layers
RANKS = {
    "pastcast": SHARED, "pastcast.text": SHARED, "pastcast.search": SHARED, "pastcast.matching": SHARED,
    "pastcast.io": SHARED, "pastcast.schemas": SHARED, "pastcast.drops": SHARED, "pastcast.llm": SHARED,
    "pastcast.retry": SHARED, "pastcast.store": SHARED, "pastcast.lease": SHARED,
    "pastcast.sources": 1, "pastcast.imports": 1,
    "pastcast.curate": 2,
    "pastcast.questions": 3,
    "pastcast.snapshot": 4, "pastcast.snapshot_checks": 4, "pastcast.snapshot_diff": 4,
    "pastcast.snapshot_export": 4, "pastcast.snapshot_assemble": 4, "pastcast.snapshot_gc": 4,
    "pastcast.snapshot_drops": 4,
    "pastcast.evaluate": 5,
    "pastcast.daily": 6, "pastcast.pipeline": 6, "pastcast.stage_checks": 6, "pastcast.cli": 6,
}
NEVER_EACH_OTHER = ("pastcast.questions", "pastcast.evaluate")


def imported_modules(path: Path) -> set[str]:
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # from . import x, from ..y import z: resolved against the package
                base = ".".join([*package[:len(package) - node.level + 1], *([base] if base else [])])
            if not base:
                continue
            names.add(base)
            names.update(f"{base}.{a.name}" for a in node.names
                         if base == "pastcast" or (node.level and not node.module))
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def part_of(module: str) -> str | None:
    """The entry of RANKS a module belongs to (the longest prefix)."""
    found = [p for p in RANKS if module == p or module.startswith(p + ".")]
    return max(found, key=len) if found else None


def violations(imports: dict[str, set[str]]) -> list[str]:
    """Every import against the direction, as 'module imports target (why)'."""
    out = []
    for module, targets in sorted(imports.items()):
        here = part_of(module)
        for target in sorted(targets):
            if target.split(".")[0] == "dagster" or target.startswith("dagster_"):
                out.append(f"{module} imports {target} (the library never imports Dagster)")
                continue
            if target.split(".")[0] in ("assets", "pipelines") and module != "pastcast.cli.demo":
                out.append(f"{module} imports {target} (only the CLI's demo reaches the code location)")
                continue
            there = part_of(target)
            if here is None or there is None or there == "pastcast":
                continue
            if RANKS[here] == SHARED and RANKS[there] != SHARED:
                out.append(f"{module} imports {target} (a shared layer imports no stage)")
            elif RANKS[there] > RANKS[here]:
                out.append(f"{module} imports {target} (a later stage)")
            elif {here, there} == set(NEVER_EACH_OTHER):
                out.append(f"{module} imports {target} (questions and evaluate never import each other)")
    return out


def library_imports() -> dict[str, set[str]]:
    return {module_name(p): imported_modules(p) for p in PASTCAST.rglob("*.py")}


def test_every_library_module_belongs_to_a_layer():
    assert not sorted(m for m in library_imports() if part_of(m) is None)


def test_the_library_imports_along_the_direction_only():
    assert violations(library_imports()) == []


@pytest.mark.parametrize("module, target", [
    ("pastcast.questions.revision", "pastcast.evaluate.agents"),    # questions -> evaluate
    ("pastcast.evaluate.judge", "pastcast.questions.filter"),        # evaluate -> questions
    ("pastcast.search.index", "pastcast.snapshot"),                  # shared -> stage
    ("pastcast.text.mentions", "pastcast.curate.extract"),           # shared -> stage
    ("pastcast.curate.dedup", "pastcast.questions.generate"),        # earlier -> later
    ("pastcast.sources.warc", "pastcast.curate.extract"),
    ("pastcast.snapshot", "pastcast.evaluate.runner"),
    ("pastcast.questions.generate", "dagster"),                      # library -> Dagster
    ("pastcast.pipeline", "pipelines.demo"),                         # library -> code location
])
def test_an_import_against_the_direction_is_caught(module, target):
    assert len(violations({module: {target}})) == 1


def test_imports_along_the_direction_pass():
    assert violations({"pastcast.questions.revision": {"pastcast.search.index", "pastcast.text", "pastcast.curate.dedup"},
                       "pastcast.evaluate.runner": {"pastcast.snapshot", "pastcast.matching", "pastcast.search.keywords"},
                       "pastcast.cli": {"pastcast.evaluate", "pastcast.questions"},
                       "pastcast.cli.demo": {"pipelines.demo"}}) == []


def test_relative_imports_are_resolved(tmp_path, monkeypatch):
    folder = tmp_path / "pastcast" / "questions"
    folder.mkdir(parents=True)
    (folder / "x.py").write_text("from ..evaluate import runner\nfrom . import filter\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    found = imported_modules(folder / "x.py")
    assert {"pastcast.evaluate", "pastcast.questions.filter"} <= found
    assert violations({"pastcast.questions.x": found})


def test_assets_never_import_the_code_location():
    wrong = {str(p.relative_to(ROOT)): sorted(n for n in imported_modules(p) if n.split(".")[0] == "pipelines")
             for p in (ROOT / "assets").rglob("*.py")}
    assert not {f: n for f, n in wrong.items() if n}
