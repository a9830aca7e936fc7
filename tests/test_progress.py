"""Progress bars draw only when someone watches: a terminal on stderr, not in CI, not switched off."""

from __future__ import annotations

import io
import sys

import pytest

from agenttune.progress import progress, progress_enabled


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def terminal(monkeypatch):
    """Makes stderr a terminal (called inside the test: pytest swaps stderr after fixtures are set up)."""

    def attach() -> Terminal:
        screen = Terminal()
        monkeypatch.setattr(sys, "stderr", screen)
        return screen

    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    return attach


def test_a_terminal_gets_a_bar(terminal):
    terminal = terminal()
    assert progress_enabled()
    with progress(total=3, desc="eval_before", unit="episode") as bar:
        for _ in range(3):
            bar.update()
    assert "eval_before" in terminal.getvalue() and "3/3" in terminal.getvalue()


@pytest.mark.parametrize("variable", ["CI", "TQDM_DISABLE"])
def test_ci_or_switched_off_gets_none(terminal, monkeypatch, variable):
    terminal = terminal()
    monkeypatch.setenv(variable, "1")
    assert not progress_enabled()
    assert list(progress(range(3), desc="teacher")) == [0, 1, 2]
    assert terminal.getvalue() == ""


def test_a_pipe_or_a_log_file_gets_none(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert not progress_enabled() and progress(range(2)).disable


def test_a_caller_can_switch_its_bar_off(terminal):
    terminal = terminal()
    assert list(progress(range(2), enabled=False, desc="tau2 retail")) == [0, 1]
    assert terminal.getvalue() == ""
