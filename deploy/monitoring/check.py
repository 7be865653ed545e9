#!/usr/bin/env python3
"""Checks the monitoring files against each other, the services' metrics and docs/operations.md.

    python3 deploy/monitoring/check.py                          # the checks below; exit 1 on any problem
    python3 deploy/monitoring/check.py --compare-scrape FILE    # also compare FILE (scrape.sh's output) with
                                                                #   metrics.txt

Checks:
- alerts.yaml is a rule file (`groups:` of `rules:`), every alert has a unique name, an expression, the labels
  `severity` (critical|warning) and `service`, and the annotations summary, description and runbook_url;
- every runbook_url is docs/operations.md#<anchor> and the anchor is a heading of docs/operations.md;
- every metric an expression (or a dashboard query) names is listed in metrics.txt; an alert that names a metric
  listed as `proposed` carries the label metric_status: proposed, and no other alert does;
- prometheus-rule.yaml holds exactly the groups of alerts.yaml;
- grafana-dashboard.json parses, its panels have unique ids and a datasource, and its queries name listed metrics
  only (none `proposed`);
- `promtool check rules` and `promtool test rules` pass when promtool is on the PATH (or in $PROMTOOL).

Needs Python 3.11 and PyYAML.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
OPERATIONS = ROOT / "docs" / "operations.md"
SEVERITIES = {"critical", "warning"}
ANNOTATIONS = ("summary", "description", "runbook_url")
SERVICES = {"management-service", "hook-service", "upload-service"}

# PromQL words that are not metric names: functions, aggregations, keywords, durations' units are not matched.
PROMQL_WORDS = {
    "sum", "min", "max", "avg", "count", "stddev", "stdvar", "topk", "bottomk", "quantile", "count_values", "group",
    "by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "offset", "bool", "atan2",
    "rate", "irate", "increase", "delta", "idelta", "deriv", "predict_linear", "histogram_quantile", "time",
    "vector", "scalar", "abs", "ceil", "floor", "round", "clamp", "clamp_min", "clamp_max", "exp", "ln", "log2",
    "log10", "sqrt", "absent", "absent_over_time", "changes", "resets", "label_replace", "label_join", "sort",
    "sort_desc", "timestamp", "day_of_week", "hour", "minute", "month", "year", "days_in_month",
    "avg_over_time", "min_over_time", "max_over_time", "sum_over_time", "count_over_time", "last_over_time",
    "quantile_over_time", "stddev_over_time", "stdvar_over_time", "present_over_time", "sgn", "inf", "nan",
}


class Problems:
    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, where: str, what: str) -> None:
        self.items.append(f"{where}: {what}")


def load_metrics(path: Path) -> dict[str, str]:
    """metrics.txt: `<sample name> <source>` per line; `#` starts a comment. Returns name -> source(s)."""
    metrics: dict[str, str] = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise SystemExit(f"{path.name}:{number}: expected '<metric> <source>', got {line!r}")
        name, source = parts
        metrics[name] = metrics[name] + "," + source if name in metrics else source
    return metrics


def metric_names(expr: str) -> set[str]:
    """The metric names an expression selects (identifiers not followed by '(' and not inside {...} or [...])."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # label values
    text = re.sub(r"\{[^}]*\}", "{}", text)  # label matchers
    text = re.sub(r"\[[^\]]*\]", "[]", text)  # ranges and subqueries
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)  # label lists
    text = re.sub(r"\$\{?\w+\}?", " ", text)  # Grafana variables
    names = set()
    for match in re.finditer(r"(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?", text):
        word, call = match.group(1), match.group(2)
        if call or word.lower() in PROMQL_WORDS:
            continue
        if re.fullmatch(r"\d+[smhdwy]", word):
            continue
        names.add(word)
    return names


def anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    out = set()
    for line in markdown.splitlines():
        m = re.match(r"#{1,6}\s+(.*)", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            out.add(slug)
    return out


def check_rules(doc: object, where: str, metrics: dict[str, str], heads: set[str], problems: Problems) -> list:
    if not isinstance(doc, dict) or not isinstance(doc.get("groups"), list):
        problems.add(where, "not a rule file: no top-level `groups:` list")
        return []
    seen = set()
    for group in doc["groups"]:
        gname = group.get("name")
        if not gname or not isinstance(group.get("rules"), list) or not group["rules"]:
            problems.add(where, f"group {gname!r} needs a name and rules")
            continue
        for rule in group["rules"]:
            name = rule.get("alert") or rule.get("record")
            at = f"{where} {gname}/{name}"
            if not name or not isinstance(rule.get("expr"), str):
                problems.add(at, "a rule needs `alert` (or `record`) and `expr`")
                continue
            used = metric_names(rule["expr"])
            for metric in sorted(used):
                if metric not in metrics:
                    problems.add(at, f"metric {metric} is not in metrics.txt")
            if "record" in rule:
                continue
            if name in seen:
                problems.add(at, "alert name used twice")
            seen.add(name)
            labels = rule.get("labels") or {}
            annotations = rule.get("annotations") or {}
            if labels.get("severity") not in SEVERITIES:
                problems.add(at, f"label severity must be one of {sorted(SEVERITIES)}")
            if labels.get("service") not in SERVICES | {"platform"}:
                problems.add(at, "label service must name a service or `platform`")
            for key in ANNOTATIONS:
                if not str(annotations.get(key, "")).strip():
                    problems.add(at, f"annotation {key} is missing")
            proposed = any(metrics.get(m, "") == "proposed" for m in used)
            marked = labels.get("metric_status") == "proposed"
            if proposed != marked:
                problems.add(at, "an alert on a proposed metric carries metric_status: proposed, and only such one")
            if proposed and "PROPOSED METRIC" not in str(annotations.get("description", "")):
                problems.add(at, "the description of an alert on a proposed metric says PROPOSED METRIC")
            url = str(annotations.get("runbook_url", ""))
            m = re.fullmatch(r"docs/operations\.md#([\w-]+)", url)
            if not m:
                problems.add(at, f"runbook_url {url!r} is not docs/operations.md#<anchor>")
            elif m.group(1) not in heads:
                problems.add(at, f"runbook_url anchor #{m.group(1)} is not a heading of docs/operations.md")
    return doc["groups"]


def check_dashboard(path: Path, metrics: dict[str, str], problems: Problems) -> None:
    try:
        board = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        problems.add(path.name, f"not JSON: {e}")
        return
    for key in ("title", "uid", "panels", "schemaVersion"):
        if key not in board:
            problems.add(path.name, f"no {key}")
    ids = set()
    queries = 0
    for panel in board.get("panels", []):
        at = f"{path.name} panel {panel.get('id')} {panel.get('title')!r}"
        if panel.get("id") in ids:
            problems.add(at, "panel id used twice")
        ids.add(panel.get("id"))
        if panel.get("type") == "row":
            continue
        if "datasource" not in panel or "gridPos" not in panel:
            problems.add(at, "needs a datasource and a gridPos")
        for target in panel.get("targets", []):
            queries += 1
            for metric in sorted(metric_names(target.get("expr", ""))):
                if metric not in metrics:
                    problems.add(at, f"metric {metric} is not in metrics.txt")
                elif metrics[metric] == "proposed":
                    problems.add(at, f"metric {metric} is only proposed")
        if not panel.get("targets"):
            problems.add(at, "no query")
    for var in board.get("templating", {}).get("list", []):
        if var.get("type") != "query":
            continue
        query = var.get("query", "")
        query = query.get("query", "") if isinstance(query, dict) else str(query)
        # label_values(metric, label): the metric is the first argument
        m = re.fullmatch(r"\s*label_values\((.*),\s*\w+\s*\)\s*", query)
        for metric in metric_names(m.group(1) if m else query):
            if metric not in metrics:
                problems.add(f"{path.name} variable {var.get('name')}", f"metric {metric} is not in metrics.txt")
    if queries == 0:
        problems.add(path.name, "no queries")


def compare_scrape(path: Path, metrics: dict[str, str], problems: Problems) -> None:
    """scrape.sh's output (`<name> <service>` lines) against metrics.txt's service-sourced lines."""
    scraped: set[tuple[str, str]] = set()
    for line in path.read_text().splitlines():
        if line.strip():
            name, service = line.split()
            scraped.add((name, service))
    listed = {(n, s) for n, sources in metrics.items() for s in sources.split(",")}
    # A meter registered on a failure may or may not be there: a failure can happen during the scrape without being
    # caused (upload-service's first key download, when it starts before management-service listens).
    on_failure = {(n, s.removesuffix("-on-failure")) for n, s in listed if s.endswith("-on-failure")}
    for name, service in sorted(scraped - listed - on_failure):
        problems.add("scrape", f"{service} exports {name}, which metrics.txt does not list for it")
    for name, source in sorted(listed):
        if source in SERVICES and (name, source) not in scraped:
            problems.add("scrape", f"metrics.txt lists {name} for {source}, which the scrape did not find")


def run_promtool(problems: Problems) -> str:
    promtool = os.environ.get("PROMTOOL") or shutil.which("promtool")
    if not promtool:
        return "promtool not found: rule syntax checked by this script only (README.md says how to get promtool)"
    for args in (["check", "rules", "alerts.yaml"], ["test", "rules", "alerts-test.yaml"]):
        result = subprocess.run([promtool, *args], cwd=HERE, capture_output=True, text=True)
        if result.returncode != 0:
            problems.add(f"promtool {' '.join(args)}", (result.stdout + result.stderr).strip())
    return f"promtool ({promtool}): check rules and test rules ran"


RULE_HEADER = """\
# The rules of alerts.yaml as a PrometheusRule for the Prometheus Operator (kustomization.yaml includes it).
# Generated: python3 deploy/monitoring/check.py --write-rule (check.py fails when the two differ). Edit alerts.yaml.
"""


def write_rule(groups: list) -> None:
    rule = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": "convplatform", "labels": {"app.kubernetes.io/part-of": "convplatform"}},
        "spec": {"groups": groups},
    }
    text = yaml.safe_dump(rule, sort_keys=False, width=120, allow_unicode=True)
    (HERE / "prometheus-rule.yaml").write_text(RULE_HEADER + text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare-scrape", type=Path, help="scrape.sh's list of scraped names")
    parser.add_argument("--write-rule", action="store_true", help="regenerate prometheus-rule.yaml from alerts.yaml")
    parser.add_argument("--no-promtool", action="store_true", help="do not run promtool even if it is found")
    args = parser.parse_args()

    problems = Problems()
    metrics = load_metrics(HERE / "metrics.txt")
    heads = anchors(OPERATIONS.read_text())
    groups = check_rules(yaml.safe_load((HERE / "alerts.yaml").read_text()), "alerts.yaml", metrics, heads,
                         problems)
    if args.write_rule:
        write_rule(groups)
    rule = yaml.safe_load((HERE / "prometheus-rule.yaml").read_text())
    if rule.get("kind") != "PrometheusRule" or rule.get("apiVersion") != "monitoring.coreos.com/v1":
        problems.add("prometheus-rule.yaml", "not a monitoring.coreos.com/v1 PrometheusRule")
    elif rule.get("spec", {}).get("groups") != groups:
        problems.add("prometheus-rule.yaml", "spec.groups differ from alerts.yaml (regenerate it, see README.md)")
    check_dashboard(HERE / "grafana-dashboard.json", metrics, problems)
    if args.compare_scrape:
        compare_scrape(args.compare_scrape, metrics, problems)
    note = "promtool skipped" if args.no_promtool else run_promtool(problems)

    alerts = sum(1 for g in groups for r in g.get("rules", []) if "alert" in r)
    for item in problems.items:
        print("FAIL", item)
    print(f"{alerts} alerts, {len(metrics)} metric names; {note}; {len(problems.items)} problems")
    return 1 if problems.items else 0


if __name__ == "__main__":
    sys.exit(main())
