"""Where the pipeline reads and writes. Every path can come from the environment."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from pastcast.pipeline import CorpusFiles


class PastcastStorage(dg.ConfigurableResource):
    """Folders of one dataset build: the raw corpus, working tables and snapshots."""

    corpus_dir: str = "corpora/sample"
    work_dir: str = ".pastcast/work/sample"
    snapshots_dir: str = "snapshots"
    snapshot_name: str = "sample"
    ingest_workers: int = 0  # processes for extraction; 0 means one per core

    def work(self) -> Path:
        path = Path(self.work_dir)
        path.mkdir(parents=True, exist_ok=True)
        return path

    def corpus(self) -> CorpusFiles:
        return CorpusFiles.discover(self.corpus_dir)


def storage_from_env() -> PastcastStorage:
    """Defaults run the bundled sample; PASTCAST_* variables point at a real corpus."""
    return PastcastStorage(
        corpus_dir=dg.EnvVar("PASTCAST_CORPUS_DIR").get_value("corpora/sample"),
        work_dir=dg.EnvVar("PASTCAST_WORK_DIR").get_value(".pastcast/work/sample"),
        snapshots_dir=dg.EnvVar("PASTCAST_SNAPSHOTS_DIR").get_value("snapshots"),
        snapshot_name=dg.EnvVar("PASTCAST_SNAPSHOT_NAME").get_value("sample"),
        ingest_workers=int(dg.EnvVar("PASTCAST_INGEST_WORKERS").get_value("0")),
    )
