"""Where prometheus_client's multiprocess mode keeps each process's metric files.

prometheus_client chooses single- or multi-process mode from PROMETHEUS_MULTIPROC_DIR when
it is first imported, so the variable is set by whoever starts the processes (the operator,
`make run`'s devstack, the tests' pytest plugin) and every process it starts (uvicorn
workers, Celery pool children) inherits it; jobs.metrics creates the directory if it
is missing, before the first metric opens a file there.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

VARIABLE = "PROMETHEUS_MULTIPROC_DIR"


def multiprocess_dir() -> Path | None:
    """The directory this process's metric files go to; None in single-process mode."""
    value = os.environ.get(VARIABLE)
    return Path(value) if value else None


def metrics_dir_prepare(*, default: Path | None, wipe_default: bool = False) -> Path | None:
    """Use the directory the environment names, else `default` (emptied first when
    `wipe_default`: a fresh run must not add to a previous run's counters); create it."""
    value = os.environ.get(VARIABLE)
    if value:
        path = Path(value)
    elif default is not None:
        path = default
        if wipe_default:
            shutil.rmtree(path, ignore_errors=True)
        os.environ[VARIABLE] = str(path)
    else:
        return None
    path.mkdir(parents=True, exist_ok=True)
    return path
