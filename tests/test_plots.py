"""Figures: fixed colour per system, expected lines, labels and legends."""

import matplotlib.colors as mcolors
import pytest
from matplotlib.figure import Figure

from analysis.checks.claims import claim_c7_table
from analysis.checks.curves import success_curves
from analysis.checks.ladders import ladder_table
from analysis.checks.modifiers import modifier_table
from analysis.checks.plots import (
    SYSTEM_COLORS,
    c7_heatmap,
    curve_spec,
    ladder_plot,
    modifier_plot,
    success_curve_plot,
)
from engines.errors import InputError
from engines.system import BUILT_IN, registry

SYSTEMS = list(registry())
MODIFIERS = {sid: s.checks.modifiers for sid, s in registry().items()}

OKABE_ITO = {"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000"}


def test_palette_is_fixed_distinct_and_colour_blind_safe():
    """The built-ins' colours (a plug-in installed beside them may add its own)."""
    colours = {sid: SYSTEM_COLORS[sid] for sid in BUILT_IN}
    assert len(set(colours.values())) == len(BUILT_IN)
    assert set(colours.values()) <= OKABE_ITO


def test_palette_follows_the_registry():
    """A system registered for a while has a colour and a label, and none once it is gone
    (the palette is read from the registry in force, not kept from an earlier one)."""
    import dataclasses

    from engines import system as S

    twin = dataclasses.replace(S.get("dice_pool_7"), id="twin_pool")
    with S.registered(twin):
        assert "twin_pool" in SYSTEM_COLORS
        assert SYSTEM_COLORS["twin_pool"] == SYSTEM_COLORS["dice_pool_7"]  # its own hook
        assert set(SYSTEM_COLORS) == set(S.registry())
    assert "twin_pool" not in SYSTEM_COLORS
    assert set(SYSTEM_COLORS) == set(S.registry())
    with pytest.raises(KeyError):
        SYSTEM_COLORS["twin_pool"]


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_success_curves_one_line_per_difficulty(system):
    fig = success_curve_plot(system)
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    spec = curve_spec(system)
    assert len(ax.get_lines()) == len(spec["lines"])
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == [str(x) for x in spec["lines"]]
    assert ax.get_xlabel()
    assert ax.get_ylabel() == "P(success)"
    for line in ax.get_lines():
        assert mcolors.to_hex(line.get_color()).upper() == SYSTEM_COLORS[system]


def test_success_curves_mc_table_has_error_bars():
    t = success_curves(
        "d20_degrees",
        "mc",
        trials=2000,
        seed=3,
        axes={"modifier": range(5), "dc": [10, 15], "degree": [1]},
    )
    fig = success_curve_plot("d20_degrees", t)
    ax = fig.axes[0]
    assert len(ax.containers) == 2  # one errorbar container per DC
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["10", "15"]


def test_ladder_plot_panels_and_lines():
    t = ladder_table()
    fig = ladder_plot(t)
    assert len(fig.axes) == 4  # easy, average, hard, very hard
    for ax in fig.axes:
        assert len(ax.get_lines()) == 5  # one per system
        colors = {mcolors.to_hex(line.get_color()).upper() for line in ax.get_lines()}
        # the built-ins (a plug-in without ladder rules is not on the common ladder)
        assert colors == {SYSTEM_COLORS[sid] for sid in BUILT_IN}
    assert [t.get_text() for t in fig.axes[-1].get_legend().get_texts()] == list(BUILT_IN)
    assert fig.axes[0].get_title() == "easy task"
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == [
        "untrained",
        "novice",
        "competent",
        "expert",
        "master",
    ]


def test_c7_heatmap_marks_breaking_cells():
    t = claim_c7_table()
    fig = c7_heatmap(t)
    ax = fig.axes[0]
    assert len(ax.images) == 1
    marks = ax.collections[0].get_offsets()
    assert len(marks) == int((~t["holds"]).sum())  # one × per cell where C7 breaks
    assert "C7" in ax.get_title()
    assert any("pp" in a.get_ylabel() for a in fig.axes[1:])  # the colour bar


def test_modifier_plot_bars_and_colors():
    fig = modifier_plot(modifier_table())
    ax = fig.axes[0]
    n = sum(len(m) for m in MODIFIERS.values())
    assert len(ax.patches) == n
    assert len(ax.get_yticklabels()) == n
    first = ax.patches[0]
    assert mcolors.to_hex(first.get_facecolor()).upper() == SYSTEM_COLORS["dice_pool_7"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(SYSTEMS)


def test_unknown_system():
    with pytest.raises(InputError, match="unknown system"):
        success_curve_plot("gurps")
