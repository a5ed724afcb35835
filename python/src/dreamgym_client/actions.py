"""Action templates: how a served env's text actions become typed tools, and back.

A served env's actions are text. Those of the form ``NAME[ARGUMENT]`` (WebShop's
``search[<query>]`` and ``click[Buy Now]``) group into one template per ``NAME`` whose argument is
a slot: ``search[<query>]`` names its slot ``query``; a template seen only with concrete
arguments (``click[...]``) names it ``target``. Actions of any other form (a household's ``go to
desk 1``) are taken verbatim by the template ``act``. A template is what a trainer's tool is
made of: ``search(query: str)`` renders ``search[red mug]``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from .results import StepResult

_BRACKETED = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\[(.*)\]$", re.S)
_SLOT = re.compile(r"^<([A-Za-z_][A-Za-z0-9_]*)>$")
_MENTIONED = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\[([A-Za-z_][A-Za-z0-9_]*)\]")
_TOOL_CALL = re.compile(r"<tool_call>\s*(\{.*?\})\s*</tool_call>", re.S)
_ACTION_LINE = re.compile(r"^\s*Action:\s*(.+?)\s*$", re.M | re.I)


@dataclass(frozen=True)
class ActionTemplate:
    """One kind of action and the typed tool it becomes.

    Attributes:
        name: The tool's name: the action's ``NAME``, or ``act`` for verbatim actions.
        slot: The tool's one argument: ``query``, ``target``, or ``action`` for ``act``.
        bracketed: True for ``NAME[ARGUMENT]`` actions; false for ``act``, whose argument is
            the whole action.
    """

    name: str
    slot: str
    bracketed: bool = True

    def render(self, argument: str) -> str:
        """The text action this template makes of ``argument``."""
        return f"{self.name}[{argument}]" if self.bracketed else argument

    @property
    def description(self) -> str:
        """What the tool does, for its docstring (and so for the schema a trainer builds)."""
        if not self.bracketed:
            return "Take one action, written exactly as one of the admissible actions listed."
        return f"Take the action {self.name}[{self.slot}] in the environment."

    @property
    def slot_description(self) -> str:
        """What the tool's argument holds."""
        if not self.bracketed:
            return "one admissible action, verbatim (e.g. 'go to desk 1')."
        if self.slot == "target":
            return f"what to {self.name}, as listed in the admissible actions (the text inside {self.name}[...])."
        return f"the {self.slot} to {self.name} with (free text)."


VERBATIM = ActionTemplate("act", "action", bracketed=False)
"""The template of actions not of the form ``NAME[ARGUMENT]``: the action as is."""


def templates_of(actions: Iterable[str]) -> list[ActionTemplate]:
    """The templates of a list of actions, in first-seen order (``act`` last, if any action needs it)."""
    slots: dict[str, str] = {}
    verbatim = False
    for action in actions:
        match = _BRACKETED.match(action.strip())
        if not match:
            verbatim = True
            continue
        name, argument = match.groups()
        slot = _SLOT.match(argument)
        if slot or name not in slots:
            slots[name] = slot.group(1) if slot else "target"
    templates = [ActionTemplate(name, slot) for name, slot in slots.items()]
    return templates + [VERBATIM] if verbatim or not templates else templates


def tool_schemas(templates: Sequence[ActionTemplate]) -> list[dict[str, object]]:
    """OpenAI-style function tools (``{"type": "function", "function": {...}}``), one per template."""
    return [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description,
                "parameters": {
                    "type": "object",
                    "properties": {t.slot: {"type": "string", "description": t.slot_description}},
                    "required": [t.slot],
                },
            },
        }
        for t in templates
    ]


def templates_in_description(description: str) -> list[ActionTemplate]:
    """Templates an env's description names, e.g. ``search[query], click[label]``; none if it names none."""
    return templates_of(f"{name}[<{slot}>]" for name, slot in _MENTIONED.findall(description))


def action_from_text(text: str, templates: Sequence[ActionTemplate]) -> str:
    """The action a model's free-text reply asks for, for trainers that hand the env text.

    In order: a ``<tool_call>{"name", "arguments"}</tool_call>`` naming one of ``templates``;
    an ``Action: …`` line; the last ``NAME[…]`` of a known template; else the reply stripped.
    The env judges the result: an action it does not admit is refused (state unchanged,
    reward 0, the reason in ``info["invalidAction"]``).
    """
    by_name = {t.name: t for t in templates}
    for raw in _TOOL_CALL.findall(text):
        try:
            call = json.loads(raw)
            template = by_name[call["name"]]
            return template.render(str(call["arguments"][template.slot]))
        except (ValueError, KeyError, TypeError):
            continue
    line = _ACTION_LINE.findall(text)
    if line:
        return line[-1]
    bracketed = [
        m.group(0)
        for m in re.finditer(r"\b([A-Za-z_][A-Za-z0-9_]*)\[[^\]\n]*\]", text)
        if m.group(1) in by_name
    ]
    return bracketed[-1] if bracketed else text.strip()


def render_result(result: StepResult) -> str:
    """A result as the policy reads it: the observation, the admissible actions, and how the
    step went (a refused action's reason, the reward, the episode's end)."""
    lines = [result.observation.text]
    if result.observation.actions:
        lines.append("Admissible actions: " + ", ".join(result.observation.actions))
    invalid = result.info.get("invalidAction")
    if invalid:
        lines.append(f"Invalid action: {invalid}")
    if result.reward:
        lines.append(f"Reward: {result.reward:g}")
    if result.done:
        lines.append("The episode is over" + (" (step limit reached)." if result.truncated else "."))
    return "\n".join(lines)
