"""Where the pipeline reads and writes. Every path can come from the environment."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from pastcast.pipeline import CorpusFiles
from pastcast.questions.markets import MarketQuestionConfig


class PastcastStorage(dg.ConfigurableResource):
    """Folders of one dataset build: the raw corpus, working tables and snapshots."""

    corpus_dir: str = "corpora/sample"
    work_dir: str = ".pastcast/work/sample"
    snapshots_dir: str = "snapshots"
    snapshot_name: str = "sample"
    ingest_workers: int = 0  # processes for extraction; 0 means one per core
    market_horizon_days: int = 0  # market questions open this long before resolving; 0: at creation
    numeric_buckets: int = 5  # numeric/date markets become questions over this many ranges; 0: dropped

    def work(self) -> Path:
        path = Path(self.work_dir)
        path.mkdir(parents=True, exist_ok=True)
        return path

    def corpus(self) -> CorpusFiles:
        return CorpusFiles.discover(self.corpus_dir)

    def market_questions(self) -> MarketQuestionConfig:
        return MarketQuestionConfig(horizon_days=self.market_horizon_days or None,
                                    numeric_buckets=self.numeric_buckets)


def storage_from_env() -> PastcastStorage:
    """Defaults run the bundled sample; PASTCAST_* variables point at a real corpus."""
    return PastcastStorage(
        corpus_dir=dg.EnvVar("PASTCAST_CORPUS_DIR").get_value("corpora/sample"),
        work_dir=dg.EnvVar("PASTCAST_WORK_DIR").get_value(".pastcast/work/sample"),
        snapshots_dir=dg.EnvVar("PASTCAST_SNAPSHOTS_DIR").get_value("snapshots"),
        snapshot_name=dg.EnvVar("PASTCAST_SNAPSHOT_NAME").get_value("sample"),
        ingest_workers=int(dg.EnvVar("PASTCAST_INGEST_WORKERS").get_value("0")),
        market_horizon_days=int(dg.EnvVar("PASTCAST_MARKET_HORIZON_DAYS").get_value("0")),
        numeric_buckets=int(dg.EnvVar("PASTCAST_NUMERIC_BUCKETS").get_value("5")),
    )
