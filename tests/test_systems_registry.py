"""The System protocol and its registry (engines.system): the five built-in systems, plug-ins
through the entry-point group ``rpg_balance.systems``, and ``rpg-balance systems``."""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import pandas as pd
import pytest

from engines import system as S
from engines.errors import InputError

#: The native success-curve axes the tables have always used (docs/howto/checks.md,
#: "Single checks").
OLD_AXES = {
    "dice_pool_7": {"pool": range(21), "successes": range(1, 11)},
    "middle_3d10": {
        "modifier": range(21),
        "difficulty": range(5, 31),
        "roll": ("normal", "advantage", "disadvantage"),
    },
    "dice_pool_6": {"pool": range(21), "difficulty": range(1, 11)},
    "percentile": {
        "skill": range(1, 100),
        "level": ("regular", "hard", "extreme"),
        "dice": range(-2, 3),
    },
    "d20_degrees": {"modifier": range(-5, 31), "dc": range(41), "degree": range(1, 5)},
}


class FakeEntryPoint:
    def __init__(self, name, obj, value="fake_pkg:PLUGIN"):
        self.name, self.value, self._obj = name, value, obj

    def load(self):
        if isinstance(self._obj, Exception):
            raise self._obj
        return self._obj


@pytest.fixture
def plugins(monkeypatch):
    """Install fake entry points; the registry is rebuilt before and after."""
    installed: list = []
    monkeypatch.setattr(S, "plugin_entry_points", lambda: list(installed))
    yield installed
    monkeypatch.undo()
    S.registry(refresh=True)


def _toy(id_="toy_2d6", **kw):
    return S.System(
        id=id_,
        name="toy",
        checks=S.Checks(module="engines.systems.dice_pool_7.checks", axes={"x": range(3)}),
        **kw,
    )


def test_built_ins_in_order_with_their_axes():
    reg = S.registry(refresh=True)
    assert list(reg)[:5] == list(S.BUILT_IN)
    for sid, axes in OLD_AXES.items():
        s = reg[sid]
        assert s.id == sid == s.checks.engine().SYSTEM
        assert s.source == "built-in"
        assert {k: list(v) for k, v in s.checks.axes.items()} == {
            k: list(v) for k, v in axes.items()
        }
        assert s.combat is not None
        assert s.campaign is not None
        assert s.checks.opposed is not None
        assert sid == s.require("combat").engine().SYSTEM
        assert isinstance(s.require("campaign").engine().MECHANICS, dict)
        assert s.checks.variants is s.checks.engine().Variants


def test_checks_axes_come_from_the_registry():
    """The success-curve axes are each installed system's own; the built-ins' are the
    ones the tables have always used (a plug-in installed beside them adds its own)."""
    from analysis.checks.curves import AXES

    reg = S.registry()
    assert list(AXES) == list(reg)
    assert {s: {k: list(v) for k, v in AXES[s].items()} for s in S.BUILT_IN} == {
        s: {k: list(v) for k, v in a.items()} for s, a in OLD_AXES.items()
    }
    for sid, system in reg.items():
        assert {k: list(v) for k, v in AXES[sid].items()} == {
            k: list(v) for k, v in system.checks.axes.items()
        }


def test_a_plugin_registers_through_the_entry_point_group(plugins):
    plugins.append(FakeEntryPoint("toy", _toy()))
    plugins.append(FakeEntryPoint("maker", lambda: _toy("toy_b")))  # a factory works too
    reg = S.registry(refresh=True)
    assert list(reg)[5:] == ["toy_2d6", "toy_b"]
    assert reg["toy_2d6"].source == "plug-in fake_pkg"
    assert reg["toy_2d6"].combat is None
    with pytest.raises(InputError, match=r"^toy_2d6: this system declares no combat rules$"):
        reg["toy_2d6"].require("combat")
    assert S.get("toy_b").id == "toy_b"


@pytest.mark.parametrize(
    ("obj", "needle"),
    [
        (_toy("dice_pool_7"), "already registered"),
        (ImportError("no module named fake_pkg"), "cannot be loaded: ImportError"),
        ("not a system", "expected an engines.system.System, got str"),
    ],
)
def test_a_bad_plugin_names_itself(plugins, obj, needle):
    plugins.append(FakeEntryPoint("bad", obj))
    with pytest.raises(InputError, match=needle) as info:
        S.registry(refresh=True)
    assert "'bad'" in str(info.value)
    assert S.ENTRY_POINT_GROUP in str(info.value)


def test_unknown_system_names_the_known_ones():
    with pytest.raises(InputError, match=r"did you mean 'dice_pool_7'.*known: dice_pool_7"):
        S.get("dice_pool7")


@pytest.mark.parametrize("bad", ["", "2d6", "pbta-2d6", "a b"])
def test_system_ids_are_identifiers(bad):
    with pytest.raises(InputError, match="system id"):
        _toy(bad)


def test_systems_command_lists_what_is_installed(plugins):
    from cli.main import main

    plugins.append(FakeEntryPoint("toy", _toy()))
    S.registry(refresh=True)
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["systems", "--format", "csv"]) == 0
    buf.seek(0)
    t = pd.read_csv(buf)
    assert list(t["id"]) == [*S.BUILT_IN, "toy_2d6"]
    assert list(t["source"]) == ["built-in"] * 5 + ["plug-in fake_pkg"]
    assert list(t["has_combat"]) == [True] * 5 + [False]
    assert list(t["has_opposed"]) == [True] * 5 + [False]
    assert t.loc[5, "axes"] == "x"


@pytest.mark.parametrize(
    ("group", "words"),
    [("ladder", "ladder mapping"), ("combat", "combat rules"), ("campaign", "campaign mechanics")],
)
def test_a_missing_group_is_one_standard_line(group, words):
    """An optional hook group left out means the system has no such part: ``require``
    raises, and ``lacks`` gives, the one line every command and section uses."""
    toy = _toy()
    line = f"toy_2d6: this system declares no {words}"
    assert toy.lacks(group) == line
    with pytest.raises(InputError) as info:
        toy.require(group)
    assert str(info.value) == line
    built_in = S.get("dice_pool_7")
    assert built_in.lacks(group) is None
    assert built_in.require(group) is getattr(built_in, group)


def test_a_group_must_be_its_own_type():
    with pytest.raises(
        InputError,
        match=r"toy_2d6: combat: expected an engines\.system\.Combat, "
        r"got str",
    ):
        _toy(combat="engines.systems.dice_pool_7.combat")
