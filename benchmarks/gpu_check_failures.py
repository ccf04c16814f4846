"""A pytest plugin for the GPU check: print each failure's report the moment
it happens (`-p gpu_check_failures`, benchmarks/ on PYTHONPATH). pytest
prints tracebacks only at the end of the session, and a tests stage cut short
by its budget never gets there: without this, a failure on the device leaves
only its name."""

from __future__ import annotations

from typing import Any


def pytest_runtest_logreport(report: Any) -> None:
    if report.failed:
        text = report.longreprtext
        print(
            f"\n---- FAILURE {report.nodeid} ({report.when}):\n{text[-4000:]}\n----",
            flush=True,
        )
