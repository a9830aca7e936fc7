"""Agent Data Protocol (ADP) trajectories: typed models, import to EventLogs and export back.

An ADP file is a JSON list of trajectories ``{"id", "content": [step, ...], "details": {...}}``; each step is an
action (``api_action``, ``code_action``, ``message_action``) or an observation (``text_observation``,
``web_observation``, ``image_observation``) tagged by ``class_``. The models below are written from the
structure of the sample files and reject unknown fields. A trajectory may state ``schema_version`` "1.0",
"1.1" or "1.2" (the samples state none); the models accept the union of the fields those versions use, the
later additions (``name`` on text observations, ``annotations`` on images, the web fields) being optional.

Import (:func:`trajectory_to_eventlog`), step by step:

* ``text_observation``: from the user -> USER; from the environment right after actions -> TOOL_RESULT
  answering the oldest unanswered call made since the last observation; otherwise -> OBSERVATION.
* ``web_observation`` / ``image_observation`` -> OBSERVATION (``source`` "web" / "image"); the text a policy
  reads is the accessibility tree, else the HTML, else the URL (web) or the image path (image).
* ``api_action`` -> TOOL_CALL (``name`` = function, ``arguments`` = kwargs, ``call_id`` = ``call_<n>``);
  ``code_action`` -> TOOL_CALL ``execute_code`` with arguments ``{"language", "code"}``.
* ``message_action`` -> TEXT then TURN_COMPLETE; the agent turn (``Event.step``) advances after it.
* An action's ``description`` (its thought) -> a REASONING event just before it.

Fields with no place in the payload (observation ``source`` and ``name``, web and image fields, the
trajectory's ``details`` and ``schema_version``) ride in ``Event.metadata["adp"]`` and
``EventLog.metadata["adp"]`` so that :func:`eventlog_to_trajectory` restores them (a web observation's field
that became the content is stored once, named by ``text_field``).

Export equals the imported input up to these normalisations (:func:`normalise`): a key whose value is
``null`` or an empty object equals an absent key (``details: {}``, ``kwargs: {}`` are the defaults), and
numbers compare by value (``1 == 1.0``). Exporting logs that did not come
from ADP drops what ADP cannot hold (SYSTEM becomes a ``text_observation`` named "system", REASONING not
followed by an action becomes a ``message_action``; REWARD, MEMORY_OP, ERROR and TURN_COMPLETE are dropped).
"""

from __future__ import annotations

import json
import os
from collections import deque
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from agenttune.events.schema import (
    Event,
    EventKind,
    EventLog,
    ObservationPayload,
    ReasoningPayload,
    TextPayload,
    ToolCallPayload,
    ToolResultPayload,
    TurnCompletePayload,
    UserPayload,
)

ADP_VERSIONS = ("1.0", "1.1", "1.2")
CODE_TOOL = "execute_code"
WEB_TEXT_FIELDS = ("axtree", "html", "url")  # the first present is what the policy reads
ACTORS = {"user": "user", "environment": "env", "agent": "agent"}
SOURCES = {actor: source for source, actor in ACTORS.items()}


class AdpModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ApiAction(AdpModel):
    class_: Literal["api_action"] = "api_action"
    function: str
    kwargs: dict[str, Any] = Field(default_factory=dict)
    description: str | None = None


class CodeAction(AdpModel):
    class_: Literal["code_action"] = "code_action"
    language: str
    content: str
    description: str | None = None


class MessageAction(AdpModel):
    class_: Literal["message_action"] = "message_action"
    content: str
    description: str | None = None


class TextObservation(AdpModel):
    class_: Literal["text_observation"] = "text_observation"
    content: str
    source: Literal["user", "environment", "agent"]
    name: str | None = None


class BoundingBox(AdpModel):
    x: float
    y: float
    width: float
    height: float


class Annotation(AdpModel):
    text: str
    element_type: str
    bounding_box: BoundingBox


class ImageObservation(AdpModel):
    class_: Literal["image_observation"] = "image_observation"
    content: str  # a path or URL of the image
    source: Literal["user", "environment", "agent"]
    annotations: list[Annotation] | None = None


class WebObservation(AdpModel):
    class_: Literal["web_observation"] = "web_observation"
    html: str | None = None
    axtree: str | None = None
    url: str | None = None
    viewport_size: list[int] | None = None
    image_observation: ImageObservation | None = None


Step = Annotated[
    ApiAction | CodeAction | MessageAction | TextObservation | ImageObservation | WebObservation,
    Field(discriminator="class_"),
]
ACTIONS = (ApiAction, CodeAction, MessageAction)


class Trajectory(AdpModel):
    id: str
    content: list[Step]
    details: dict[str, Any] = Field(default_factory=dict)
    schema_version: Literal["1.0", "1.1", "1.2"] | None = None


TRAJECTORIES = TypeAdapter(list[Trajectory])


def load_adp(path: str | os.PathLike) -> list[Trajectory]:
    """Validate an ADP JSON file (a list of trajectories)."""
    return TRAJECTORIES.validate_json(Path(path).read_bytes())


def dump_adp(trajectories: list[Trajectory], path: str | os.PathLike) -> None:
    """Write trajectories as an ADP JSON list (``null`` fields omitted)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    data = TRAJECTORIES.dump_python(trajectories, mode="json", exclude_none=True)
    Path(path).write_text(json.dumps(data, ensure_ascii=False, indent=1))


def trajectory_to_eventlog(trajectory: Trajectory, dataset: str = "") -> EventLog:
    """One ADP trajectory as a light EventLog (see the module docstring for the mapping)."""
    events: list[Event] = []
    pending: deque[tuple[str, str]] = deque()  # (call_id, name) of calls not answered yet
    step = 0
    for item in trajectory.content:
        if isinstance(item, ACTIONS) and item.description is not None:
            events.append(Event(payload=ReasoningPayload(text=item.description), step=step))
        if isinstance(item, ApiAction | CodeAction):
            call_id = f"call_{len(events)}"
            if isinstance(item, ApiAction):
                call = ToolCallPayload(call_id=call_id, name=item.function, arguments=item.kwargs)
            else:
                arguments = {"language": item.language, "code": item.content}
                call = ToolCallPayload(call_id=call_id, name=CODE_TOOL, arguments=arguments)
            events.append(Event(payload=call, step=step, metadata={"adp": {"class_": item.class_}}))
            pending.append((call_id, call.name))
            continue
        if isinstance(item, MessageAction):
            events.append(Event(payload=TextPayload(text=item.content), step=step))
            events.append(Event(payload=TurnCompletePayload(), step=step))
            step += 1
            pending.clear()
            continue
        events.append(_observation_event(item, pending, step))
    metadata = {"adp": {"details": trajectory.details, "schema_version": trajectory.schema_version}}
    source = f"adp:{dataset}" if dataset else "adp"
    return EventLog(id=trajectory.id, source=source, task_id=trajectory.id, events=events, metadata=metadata)


def _observation_event(
    item: TextObservation | ImageObservation | WebObservation, pending: deque[tuple[str, str]], step: int
) -> Event:
    if isinstance(item, WebObservation):
        pending.clear()
        shown = next((name for name in WEB_TEXT_FIELDS if getattr(item, name)), None)
        fields = item.model_dump(mode="json", exclude={"class_", shown})
        fields["text_field"] = shown  # the field the content came from, not stored twice
        payload = ObservationPayload(content=getattr(item, shown) if shown else "", source="web")
        return Event(payload=payload, actor="env", step=step, metadata={"adp": fields})
    actor = ACTORS[item.source]
    if isinstance(item, ImageObservation):
        pending.clear()
        fields = item.model_dump(mode="json", include={"source", "annotations"})
        payload = ObservationPayload(content=item.content, source="image")
        return Event(payload=payload, actor=actor, step=step, metadata={"adp": fields})
    fields = {"source": item.source, "name": item.name}
    if item.source == "environment" and pending:
        call_id, name = pending.popleft()
        payload = ToolResultPayload(call_id=call_id, name=name, content=item.content)
        return Event(payload=payload, actor="tool", step=step, metadata={"adp": fields})
    pending.clear()
    if item.source == "user" and item.name is None:
        return Event(payload=UserPayload(text=item.content), actor=actor, step=step)
    payload = ObservationPayload(content=item.content, source=item.source)
    return Event(payload=payload, actor=actor, step=step, metadata={"adp": fields})


def eventlog_to_trajectory(log: EventLog, branch: str = "main") -> Trajectory:
    """``branch``'s path of a log as a validated ADP trajectory (see the module docstring)."""
    steps: list[dict[str, Any]] = []
    thought: str | None = None
    path = log.path(branch)
    for position, event in enumerate(path):
        payload, extra = event.payload, event.metadata.get("adp", {})
        kind = payload.kind
        if kind == EventKind.REASONING:
            following = path[position + 1].payload.kind if position + 1 < len(path) else None
            if following in (EventKind.TOOL_CALL, EventKind.TEXT):
                thought = payload.text
            else:
                steps.append({"class_": "message_action", "content": payload.text})
            continue
        if kind == EventKind.TOOL_CALL:
            if extra.get("class_") == "code_action" or (payload.name == CODE_TOOL and not extra):
                step = {"class_": "code_action", "language": payload.arguments.get("language", ""),
                        "content": payload.arguments.get("code", "")}  # fmt: skip
            else:
                step = {"class_": "api_action", "function": payload.name, "kwargs": payload.arguments}
            steps.append({**step, "description": thought})
            thought = None
        elif kind == EventKind.TEXT:
            steps.append({"class_": "message_action", "content": payload.text, "description": thought})
            thought = None
        elif kind in (EventKind.USER, EventKind.SYSTEM):
            name = extra.get("name", "system" if kind == EventKind.SYSTEM else None)
            source = "environment" if kind == EventKind.SYSTEM else "user"
            steps.append(
                {"class_": "text_observation", "content": payload.text, "source": source, "name": name}
            )
        elif kind == EventKind.TOOL_RESULT:
            fields = {"source": "environment", **extra}
            steps.append({"class_": "text_observation", "content": payload.content, **fields})
        elif kind == EventKind.OBSERVATION:
            steps.append(_observation_step(payload, event.actor, extra))
    details = log.metadata.get("adp", {})
    return Trajectory.model_validate(
        {
            "id": log.id,
            "content": steps,
            "details": details.get("details", {}),
            "schema_version": details.get("schema_version"),
        }
    )


def _observation_step(payload: ObservationPayload, actor: str, extra: dict[str, Any]) -> dict[str, Any]:
    if payload.source == "web":
        fields = dict(extra) if extra else {"text_field": "axtree"}
        shown = fields.pop("text_field", None)
        if shown:
            fields[shown] = payload.content
        return {"class_": "web_observation", **fields}
    source = extra.get("source", SOURCES.get(actor, "environment"))
    if payload.source == "image":
        return {"class_": "image_observation", "content": payload.content, **extra, "source": source}
    return {
        "class_": "text_observation",
        "content": payload.content,
        "name": extra.get("name"),
        "source": source,
    }


def import_adp(path: str | os.PathLike) -> list[EventLog]:
    """The trajectories of an ADP file as EventLogs (``source`` = ``adp:<file stem>``)."""
    dataset = Path(path).name.removesuffix(".json").removesuffix(".adp")
    return [trajectory_to_eventlog(trajectory, dataset) for trajectory in load_adp(path)]


def export_adp(logs: list[EventLog], path: str | os.PathLike) -> None:
    """Write logs as an ADP JSON list."""
    dump_adp([eventlog_to_trajectory(log) for log in logs], path)


def normalise(value: Any) -> Any:
    """ADP data with ``null``-valued and empty-object keys dropped and numbers as floats, to compare round trips."""
    if isinstance(value, dict):
        return {key: normalise(item) for key, item in value.items() if item is not None and item != {}}
    if isinstance(value, list):
        return [normalise(item) for item in value]
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    return float(value)
