"""The sweep report: a W&B Report built with wandb-workspaces from the same rows as report.md/html (spec written
offline, with the sweep's group filter and its panels), a one-line error without wandb-workspaces, and a local page
a researcher keeps open (header, lines per value of the other swept key, the selected configuration highlighted,
each swept value once; rendered in headless Chromium where it is installed)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agenttune.config import repo_root
from agenttune.tracking.jobs import load_jobs
from agenttune.tracking.report import _series, collect, varying_metrics, write_report

ROOT = Path(repo_root())
GRID = [(beta, lr) for beta in ("0.1", "0.5") for lr in ("1e-05", "1e-04")]


def write_sweep(folder: Path, tau2: bool = False) -> Path:
    """A finished beta x lr sweep of four jobs as Hydra and RunContext leave it."""
    for job, (beta, lr) in enumerate(GRID):
        path = folder / str(job)
        (path / ".hydra").mkdir(parents=True)
        overrides = ["+sweep=dpo_grid_smoke", f"algorithm.beta={beta}", f"algorithm.learning_rate={lr}"]
        (path / ".hydra" / "overrides.yaml").write_text("".join(f"- {o}\n" for o in overrides))
        (path / ".hydra" / "hydra.yaml").write_text(
            f"hydra:\n  sweep:\n    dir: {folder}\n    subdir: '{job}'\n"
        )
        config = {
            "logger": {"project": "agenttune"},
            "algorithm": {"beta": beta, "learning_rate": lr, "max_steps": 2},
        }
        (path / ".hydra" / "config.yaml").write_text(json.dumps(config))
        reward = float(beta) + 1000 * float(lr)
        metrics = {"eval/avg_reward": reward, "eval/avg_reward/ci_low": reward - 0.1}
        metrics |= {"eval/avg_reward/ci_high": reward + 0.1, "eval/avg_reward/n": 4, "eval/episodes": 4}
        metrics |= {"train/loss/final": 0.69, "train/rewards/margins/final": job / 100}
        if tau2:
            metrics |= {
                "selected_checkpoint": "final",
                "select_e2e_reward": reward,
                "select_chosen_reward": 0.1,
            }
        summary = {
            "status": "completed",
            "experiment": "smoke",
            "sweep": "dpo_grid_smoke",
            "metrics": metrics,
        }
        summary |= {
            "git_commit": "0123456789abcdef",
            "hardware": {"device": "cpu", "cpu_count": 2, "platform": "Linux"},
        }
        (path / "summary.json").write_text(json.dumps(summary))
    return folder


def test_the_wandb_report_spec_filters_the_sweeps_group_and_has_its_panels(tmp_path, monkeypatch):
    pytest.importorskip("wandb_workspaces", reason="needs wandb-workspaces: pip install -e '.[reports]'")
    from agenttune.tracking.wandb_report import SPEC_FILE, publish

    monkeypatch.setenv("WANDB_MODE", "offline")
    sweep = write_sweep(tmp_path / "sweep")
    rows, metrics, _ = collect(sweep)
    message = publish(sweep, rows, varying_metrics(rows, metrics))
    assert "WANDB_MODE=online python scripts/report.py" in message and "wandb sync" in message
    spec = json.loads((sweep / SPEC_FILE).read_text())
    (grid,) = [block for block in spec["spec"]["blocks"] if block["type"] == "panel-grid"]
    (runset,) = grid["metadata"]["runSets"]
    (group_filter,) = runset["filters"]["filters"]
    assert group_filter["key"] == {"section": "run", "name": "group"} and group_filter["value"] == str(sweep)
    panels = grid["metadata"]["panelBankSectionConfig"]["panels"]
    titles = {panel["config"].get("chartTitle"): panel for panel in panels}
    for key in (
        "algorithm.beta",
        "algorithm.learning_rate",
    ):  # each swept value against each varying eval metric
        scatter = titles[f"eval/avg_reward against {key}"]
        assert (
            scatter["viewType"] == "Scatter Plot" and scatter["config"]["yAxis"] == "summary:eval/avg_reward"
        )
    assert "eval/episodes against algorithm.beta" not in titles  # constant across jobs: not plotted
    parallel = titles["swept values and evaluation metrics"]
    assert parallel["viewType"] == "Parallel Coordinates Plot" and len(parallel["config"]["columns"]) == 3
    assert titles["train reward"]["config"]["metrics"] == ["train/reward"]
    assert titles["train loss"]["config"]["metrics"] == ["train/loss"]
    # plotted against the stage's own step (agenttune.tracking.loggers)
    assert titles["train reward"]["config"]["xAxis"] == "train/step"
    assert sum(panel["viewType"] == "Weave" for panel in panels) == 1  # eval/trajectories
    assert "eval/trajectories" in json.dumps([p for p in panels if p["viewType"] == "Weave"])


def test_without_wandb_workspaces_the_report_stops_with_one_line_before_writing(tmp_path, monkeypatch):
    sweep = write_sweep(tmp_path / "sweep")
    monkeypatch.setitem(sys.modules, "wandb_workspaces.reports.v2", None)  # import fails as if not installed
    monkeypatch.setattr(sys, "argv", ["report.py", str(sweep), "--wandb"])
    spec = importlib.util.spec_from_file_location("report_script", ROOT / "scripts" / "report.py")
    report_script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report_script)
    with pytest.raises(SystemExit) as stopped:
        report_script.main()
    message = str(stopped.value)
    assert message == (
        "error: --wandb needs wandb-workspaces, which is not installed: pip install -e '.[reports]' "
        "(or leave --wandb out for report.md and report.html alone)"
    )
    assert not (sweep / "report.md").exists() and not (sweep / "wandb_report.json").exists()


def test_a_two_dimensional_grid_draws_one_line_per_value_of_the_other_key(tmp_path):
    rows = load_jobs(write_sweep(tmp_path / "sweep"))
    series = _series(rows, "algorithm.beta", ["algorithm.learning_rate"], "eval/avg_reward")
    assert list(series) == ["algorithm.learning_rate=1e-04", "algorithm.learning_rate=1e-05"]
    assert [[x for x, _ in points] for points in series.values()] == [[0.1, 0.5], [0.1, 0.5]]


def test_the_page_has_a_header_each_swept_value_once_and_the_selected_configuration_highlighted(tmp_path):
    sweep = write_sweep(tmp_path / "sweep", tau2=True)
    md_path, html_path = write_report(sweep)
    page = html_path.read_text()
    header = page.split("<header>")[1].split("</header>")[0]
    for name, value in [("experiment", "smoke (+sweep=dpo_grid_smoke)"), ("commit", "0123456789ab")]:
        assert f"<dt>{name}</dt><dd>{value}</dd>" in header
    assert f"<dd>{sweep.resolve()}</dd>" in header and "cpu, 2 CPUs, Linux" in header
    assert re.search(r"<dt>date</dt><dd>\d{4}-\d\d-\d\d \d\d:\d\d UTC</dd>", header)
    table = md_path.read_text().split("\n\n")[1]
    assert (
        "algorithm.beta=" not in table and "| beta | lr | steps |" in table
    )  # beta and lr once, own columns
    (selected,) = re.findall(r"<tr class='selected'><td>(\d+)</td>", page)
    assert selected == "3"  # the best end-to-end selection reward: beta 0.5, lr 1e-4


@pytest.mark.slow
def test_report_html_fits_1400_pixels_and_shows_its_plots_in_chromium(tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("headless Chromium is not installed (Debian: apt-get install chromium)")
    sweep = write_sweep(tmp_path / "sweep")
    _, html_path = write_report(sweep)
    probe = html_path.with_name("probe.html")  # the page plus a script that writes what the browser laid out
    probe.write_text(
        html_path.read_text().replace(
            "</body>",
            "<script>window.onload=()=>{const images=[...document.images];document.title=JSON.stringify("
            "{width:document.documentElement.scrollWidth,images:images.length,"
            "loaded:images.filter(i=>i.complete&&i.naturalWidth>0).length})}</script></body>",
        )
    )
    dom = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000",
         "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    shown = json.loads(html_unescape(re.search(r"<title>(.*?)</title>", dom).group(1)))
    assert shown["width"] <= 1400, f"the page is {shown['width']} px wide at a 1400 px window"
    assert shown["images"] == len(list(sweep.glob("plot_*.png"))) >= 2 and shown["loaded"] == shown["images"]


def html_unescape(text: str) -> str:
    import html

    return html.unescape(text)


@pytest.mark.slow
def test_a_finished_smoke_sweeps_report_filters_on_the_group_its_runs_logged_under(tmp_path):
    pytest.importorskip("wandb_workspaces", reason="needs wandb-workspaces: pip install -e '.[reports]'")
    from tests.test_wandb_tracking import wandb_records

    sweep = tmp_path / "sweep"
    env = {**os.environ, "WANDB_MODE": "offline", "HF_HUB_OFFLINE": "1"}
    overrides = ["+experiment=smoke", "model=tiny_random", "algorithm=dpo", "algorithm.beta=0.1,0.5"]
    overrides += ["algorithm.max_steps=1", "logger=wandb", f"hydra.sweep.dir={sweep}"]
    subprocess.run([sys.executable, "train.py", "-m", *overrides], cwd=ROOT, env=env, check=True, timeout=900)
    subprocess.run(
        [sys.executable, "scripts/report.py", str(sweep), "--wandb"], cwd=ROOT, env=env, check=True
    )
    spec = json.loads((sweep / "wandb_report.json").read_text())
    (grid,) = [block for block in spec["spec"]["blocks"] if block["type"] == "panel-grid"]
    (group_filter,) = grid["metadata"]["runSets"][0]["filters"]["filters"]
    run_files = sorted(sweep.glob("*/wandb/offline-run-*/run-*.wandb"))
    assert len(run_files) == 2
    for run_file in run_files:
        records = list(wandb_records(run_file))
        (run,) = [r.run for r in records if r.WhichOneof("record_type") == "run"]
        assert run.run_group == group_filter["value"]
        assert [r.artifact.type for r in records if r.WhichOneof("record_type") == "artifact"] == ["eventlog"]
    titles = [
        panel["config"].get("chartTitle") for panel in grid["metadata"]["panelBankSectionConfig"]["panels"]
    ]
    assert {"train reward", "train loss"} <= set(titles)
    assert (sweep / "report.html").exists()
