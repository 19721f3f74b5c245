"""The Prometheus alert rules and the Grafana dashboard in deploy/monitoring/ load, and
every metric they reference is one /metrics serves."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from django.test import Client
from prometheus_client import REGISTRY, generate_latest
from prometheus_client.parser import text_string_to_metric_families

import jobs.metrics  # noqa: F401 - registers the instruments

pytestmark = pytest.mark.process


MONITORING = Path(__file__).resolve().parents[3] / "deploy" / "monitoring"
RULES = MONITORING / "prometheus-alerts.yml"
DASHBOARD = MONITORING / "grafana-dashboard.json"
METRIC_NAME = re.compile(r"\bpdf_[a-z0-9_]+\b")
SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count"), "gauge": ("",)}


@pytest.fixture
def served_names(db) -> set[str]:
    """Names a query may use: counters with _total, histograms with their three series.
    /metrics has the scrape-time families; this process's registry has every instrument,
    including those no process has touched yet (absent from a multiprocess scrape)."""
    text = Client().get("/metrics").content.decode() + generate_latest(REGISTRY).decode()
    return {
        family.name + suffix
        for family in text_string_to_metric_families(text)
        for suffix in SUFFIXES.get(family.type, ("",))
    }


def _rule_exprs() -> list[str]:
    groups = yaml.safe_load(RULES.read_text())["groups"]
    return [rule["expr"] for group in groups for rule in group["rules"]]


def _dashboard_exprs() -> list[str]:
    panels = json.loads(DASHBOARD.read_text())["panels"]
    return [target["expr"] for panel in panels for target in panel["targets"]]


def test_alert_rules_cover_the_seed_and_operations():
    groups = yaml.safe_load(RULES.read_text())["groups"]
    names = {rule["alert"] for group in groups for rule in group["rules"]}
    assert {
        "PdfGenerationSlow",
        "PdfFailureRateHigh",
        "PdfQueueBacklogOld",
        "PdfDeadLettersGrowing",
        "PdfNoWorker",
    } <= names
    for group in groups:
        for rule in group["rules"]:
            assert rule["labels"]["severity"] in {"warning", "critical"}
            assert rule["annotations"]["summary"]


@pytest.mark.parametrize("source", ["rules", "dashboard"])
def test_every_referenced_metric_is_served(source, served_names):
    exprs = _rule_exprs() if source == "rules" else _dashboard_exprs()
    referenced = {name for expr in exprs for name in METRIC_NAME.findall(expr)}
    assert referenced, "no metric referenced at all"
    assert referenced <= served_names, sorted(referenced - served_names)


def test_dashboard_has_the_panels_an_operator_looks_at():
    dashboard = json.loads(DASHBOARD.read_text())
    titles = " | ".join(panel["title"] for panel in dashboard["panels"])
    for expected in ("Throughput", "p50 / p95", "Failure rate", "Queue depth", "Workers"):
        assert expected in titles
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    for panel in dashboard["panels"]:
        assert panel["datasource"]["uid"] == "${datasource}"
        assert all(target["refId"] for target in panel["targets"])


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool (Debian: prometheus)")
def test_promtool_checks_and_unit_tests_the_rules():
    checked = subprocess.run(
        ["promtool", "check", "rules", str(RULES)], capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = subprocess.run(
        ["promtool", "test", "rules", "prometheus-alerts.test.yml"],
        cwd=MONITORING,
        capture_output=True,
        text=True,
        check=False,
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
