"""Every ``paigow`` command's ``--help`` is plain text: no reStructuredText mark a module's
docstring carries (````paigow simulate````, ``:func:`x```) reaches the terminal."""

from __future__ import annotations

import re

import pytest

from entrypoints.cli.main import command_modules, main, plain


def test_plain_drops_roles_and_literals() -> None:
    said = "``paigow simulate``: see :func:`audit.verify.verify_log` and :py:class:`~x.Y`."
    assert plain(said) == "paigow simulate: see audit.verify.verify_log and x.Y."
    assert plain("a bundle from `paigow audit export`") == "a bundle from `paigow audit export`"


@pytest.mark.parametrize("name", command_modules())
def test_every_commands_help_is_plain_text(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([name.replace("_", "-"), "--help"])
    assert done.value.code == 0
    shown = capsys.readouterr().out
    assert shown.startswith("usage: paigow")
    assert "``" not in shown and not re.search(r":[a-z]+:`", shown), shown
