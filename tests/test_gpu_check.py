"""scripts/gpu_check.py: its shipping logic, and the whole check in its CPU form (so it cannot rot off a GPU)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from agenttune.config import repo_root

spec = importlib.util.spec_from_file_location("gpu_check", Path(repo_root()) / "scripts" / "gpu_check.py")
gpu_check = importlib.util.module_from_spec(spec)
sys.modules["gpu_check"] = gpu_check  # its dataclasses look their module up
spec.loader.exec_module(gpu_check)


def test_only_packages_missing_or_unusable_on_the_host_are_installed():
    host = {"transformers": "5.17.0", "trl": None, "datasets": "5.2.0", "bitsandbytes": None}
    missing = {w.name for w in gpu_check.missing_wheels(lambda name: host.get(name, "99"))}
    # 5.17 is older than the project needs; trl and bitsandbytes are absent; "99" satisfies no upper bound
    assert {"transformers", "trl", "bitsandbytes"} <= missing
    assert "datasets" not in missing


def test_a_file_split_into_bundles_joins_back_byte_for_byte(tmp_path):
    payload = bytes(range(256)) * 9000  # 2.2 MiB
    source = tmp_path / "model.gguf"
    source.write_bytes(payload)
    manifest = gpu_check.split_file(source, tmp_path / "staging" / "gguf", part_mib=1)
    parts = [tmp_path / "staging" / "gguf" / name for name in manifest["parts"]]
    bundles = gpu_check.pack_bundles(parts, tmp_path / "ship", bundle_mib=1.5)
    assert len(manifest["parts"]) == 3 and [len(b) for b in bundles] == [1, 2]  # 1 + 1 MiB > 1.5 MiB
    for number in range(1, len(bundles) + 1):
        (tmp_path / "ship" / str(number) / "gguf.json").write_text(json.dumps(manifest))
    joined = gpu_check.join_gguf(tmp_path / "ship", tmp_path / "joined")
    assert joined.read_bytes() == payload

    bundles[1][0].write_bytes(b"damaged")
    with pytest.raises(ValueError, match="SHA-256"):
        gpu_check.join_gguf(tmp_path / "ship", tmp_path / "joined")
    bundles[1][0].unlink()
    with pytest.raises(FileNotFoundError, match="part-01"):
        gpu_check.join_gguf(tmp_path / "ship", tmp_path / "joined")


def test_an_item_larger_than_a_bundle_is_refused(tmp_path):
    big = tmp_path / "wheels" / "big.whl"
    big.parent.mkdir()
    big.write_bytes(b"x" * (2 << 20))
    with pytest.raises(ValueError, match="big.whl is 2.0 MiB"):
        gpu_check.pack_bundles([big], tmp_path / "ship", bundle_mib=1)


def test_the_check_runs_on_cpu_with_tiny_sizes(tmp_path):
    code = gpu_check.main(
        ["run", "--device", "cpu", "--ship", str(tmp_path / "none"), "--out", str(tmp_path)]
    )
    report = json.loads((tmp_path / "gpu_check.json").read_text())
    assert code == 0, report["failed"]
    parts = report["parts"]
    engine = parts["engine"]["rows"]
    assert {"continuous@1", "plain_generate@1", "continuous@4", "plain_generate@4"} <= set(engine)
    assert all(row["tokens"] > 0 and row["tokens_per_s"] > 0 for row in engine.values())
    for name in ("grpo", "dpo"):
        assert parts[name]["step_s"] > 0, parts[name]
    assert "step_s" in parts["qlora"] or "skipped" in parts["qlora"]
    assert parts["greedy"]["ok"] and parts["greedy"]["equal"] == gpu_check.SIZES["tiny"].greedy_prompts
