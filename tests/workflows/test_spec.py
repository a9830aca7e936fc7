"""Workflow YAMLs are typed and checked when the config is composed; conditions go through a safe evaluator."""

from __future__ import annotations

import copy

import pytest
from omegaconf import OmegaConf

from agenttune.config_store import validate_config
from agenttune.workflows.expressions import ExpressionError, check_expression, evaluate
from agenttune.workflows.spec import RouteConfig, WorkflowError, check_workflow, load_workflow
from tests.conftest import compose_config

TEMPLATES = [
    "cuad_clause_review",
    "cuad_retry",
    "cuad_collect_train_deploy",
    "kyc_review",
    "tau2_customer_service",
    "tau2_release_gate",
]
SOURCE = "conf/workflow/kyc_review.yaml"


@pytest.fixture(scope="module")
def kyc():
    return load_workflow(compose_config(["pipeline=workflow", "workflow=kyc_review"]).workflow)


@pytest.mark.parametrize("name", TEMPLATES)
def test_every_template_composes_and_passes_the_checks(name):
    cfg = compose_config(["pipeline=workflow", f"workflow={name}"])
    validate_config(cfg)
    assert load_workflow(cfg.workflow).name == name


def test_a_bad_node_fails_when_the_config_is_validated_naming_file_node_and_field():
    cfg = compose_config(["pipeline=workflow", "workflow=kyc_review"])
    cfg.workflow.nodes[1].kind = "oracle_magic"
    with pytest.raises(WorkflowError, match=r"conf/workflow/kyc_review.yaml: node 'sanctions' field 'kind'"):
        validate_config(cfg)


def test_an_unknown_field_fails_at_compose_time():
    cfg = compose_config(["pipeline=workflow", "workflow=kyc_review"])
    job = OmegaConf.to_container(cfg, resolve=False)
    job["workflow"]["nodes"][0]["treshold"] = 3
    with pytest.raises(Exception, match="treshold"):
        validate_config(OmegaConf.create(job))


def broken(workflow, change):
    copied = copy.deepcopy(workflow)
    change({node.id: node for node in copied.nodes}, copied)
    return copied


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda n, w: setattr(n["document"], "kind", "magic"),
            "node 'document' field 'kind': unknown kind 'magic'",
        ),
        (lambda n, w: setattr(n["age"], "next", "nowhere"), "node 'age' field 'next': goes to 'nowhere'"),
        (
            lambda n, w: setattr(n["route"], "routes", [RouteConfig(when="risk > 1", goto="ghost")]),
            "node 'route' field 'routes\\[0\\].goto': goes to 'ghost'",
        ),
        (
            lambda n, w: setattr(n["age"], "next", "score") or setattr(n["sanctions"], "next", "score"),
            "node 'age' field 'id': no path from start",
        ),
        (
            lambda n, w: n["score"].assign.update(risk="60 *"),
            "node 'score' field 'assign.risk': .* not an expression",
        ),
        (lambda n, w: n["score"].assign.update(risk="ghost + 1"), "field 'assign.risk': .* reads 'ghost'"),
        (lambda n, w: n["score"].assign.update(risk="sanctions.verdict"), "reads sanctions.verdict"),
        (
            lambda n, w: setattr(n["route"].routes[0], "when", "__import__('os')"),
            "routes\\[0\\].when': .* calls",
        ),
        (lambda n, w: setattr(n["route"].routes[0], "when", "(lambda: 1) is None"), "uses Lambda"),
        (lambda n, w: setattr(n["route"].routes[0], "when", "input.__class__"), "starting with _"),
        (lambda n, w: setattr(n["document"], "tool", "kyc.format_disk"), "field 'tool': unknown tool"),
        (lambda n, w: setattr(n["document"], "when", "1 > 0"), "field 'when': a tool node does not read"),
        (lambda n, w: n["score"].assign.update(age="1"), "field 'assign.age': 'age' is already a node id"),
    ],
)
def test_check_names_file_node_and_field(kyc, change, expected):
    with pytest.raises(WorkflowError, match=f"^{SOURCE}: .*{expected}"):
        check_workflow(broken(kyc, change), SOURCE)


def test_conditions_do_arithmetic_and_comparisons_without_eval():
    values = {"risk": 35, "review": {"reward": 0.25, "errors": 1}, "limit": 3}
    assert evaluate("review.reward * 4 + risk / 5 >= 8", values) is True
    assert evaluate("max(review.errors, 2) - 1 < limit and not review.reward > 1", values) is True
    assert evaluate("round(risk * 1.5) % 7", values) == 3  # round(52.5) == 52
    with pytest.raises(ExpressionError, match="open"):
        evaluate("open('/etc/passwd')", values)
    with pytest.raises(ExpressionError):
        check_expression("[x for x in range(9)]", {})
