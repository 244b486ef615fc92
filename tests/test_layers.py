"""The shared text layer sits below every stage, and curation below the question stages
(the rest of the import direction is issue 16's)."""

import ast
from pathlib import Path

PASTCAST = Path(__file__).resolve().parent.parent / "pastcast"


def _imports(folder: Path) -> dict[str, set[str]]:
    out = {}
    for path in folder.rglob("*.py"):
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
        out[str(path.relative_to(PASTCAST.parent))] = {n for n in names if n.startswith("pastcast")}
    return out


def test_the_text_layer_imports_no_stage():
    wrong = {f: sorted(n for n in names if not n.startswith("pastcast.text"))
             for f, names in _imports(PASTCAST / "text").items()}
    assert not {f: n for f, n in wrong.items() if n}


def test_curation_imports_no_later_stage():
    later = ("pastcast.questions", "pastcast.evaluate", "pastcast.snapshot", "pastcast.pipeline", "pastcast.cli")
    wrong = {f: sorted(n for n in names if n.startswith(later)) for f, names in _imports(PASTCAST / "curate").items()}
    assert not {f: n for f, n in wrong.items() if n}
