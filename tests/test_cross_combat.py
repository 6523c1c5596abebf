"""Cross-system combat tables (analysis.combat.cross_combat) on the common ladder.

MC rows vs exact rows: ``abs(p_mc - p) <= 5 * sqrt(p * (1 - p) / n) + 1 / n`` (five SEs
plus one count), fixed seeds.
"""

import math

import numpy as np
import pytest

from analysis.checks.plots import SYSTEM_COLORS
from analysis.combat import cross_combat as X
from analysis.combat.archetypes import systems
from engines.errors import InputError
from engines.system import BUILT_IN

#: The systems of the packaged analysis/data/cross_combat.toml: the five built-ins (a
#: plug-in installed beside them enters with ``--cross-combat FILE``,
#: tests/test_cross_combat_file.py).
SYSTEMS = BUILT_IN

N = 3000


def test_mapping_file_loads_every_system():
    assert set(SYSTEMS) <= set(systems())  # every built-in has an archetype library
    spec = X.load_cross()
    apart = {
        f"{m}_{d}m" for m in ("shooter_vs_charger", "armoured_shooter") for d in (0, 10, 20, 40)
    }
    assert set(spec["matchups"]) == {"melee_equal", "pistol_vs_novice"} | apart
    for mid, entry in spec["matchups"].items():
        for system in SYSTEMS:
            a, b = entry[system]
            if mid == "melee_equal":
                assert a == b  # an equal
    # the pistol matchup's B wears no armour in any system with armour rules (A13, DX11, E12)
    pm = spec["matchups"]["pistol_vs_novice"]
    assert pm["dice_pool_7"][1].armour.name == "none"
    assert pm["percentile"][1].armour == 0
    assert pm["d20_degrees"][1].toughness == 1  # Stamina 1, no armour
    assert set(spec["ladder"]) == set(SYSTEMS)


def test_cross_table_exact_has_all_five_systems():
    t = X.cross_table(method="exact")
    assert len(t) == 10 * len(SYSTEMS)
    assert (t[t["matchup"].isin(["melee_equal", "pistol_vs_novice"])]["distance"] == 0).all()
    for mid in ("melee_equal", "pistol_vs_novice"):
        assert set(t[t["matchup"] == mid]["system"]) == set(SYSTEMS)
    ex = t[t["method"] == "exact"]
    assert (ex[["se_side0", "se_side1", "se_neither", "rounds_se"]] == 0).all().all()
    probs = t["p_side0"] + t["p_side1"] + t["p_neither"]
    np.testing.assert_allclose(probs, 1.0, atol=1e-9)
    melee = t[t["matchup"] == "melee_equal"]
    np.testing.assert_allclose(melee["p_side0"], melee["p_side1"], atol=1e-9)  # mirror matches
    pistol = t[t["matchup"] == "pistol_vs_novice"]
    assert (pistol["p_side0"] > 0.5).all()  # the shooter is favoured in every system
    for col in ("one_hit_incap_a_on_b", "one_hit_kill_a_on_b"):
        assert t[col].between(0, 1).all()
    # the loser's fates (RULES.md "Lethality outcomes", default policy leave) sum to 1
    # among decided fights in every system (needs engines that fill loser_fate)
    assert (t["aftermath"] == "leave").all()
    fates = t[["p_loser_dead", "p_loser_dying", "p_loser_out"]].sum(axis=1)
    np.testing.assert_allclose(fates, 1.0, atol=1e-9)


@pytest.mark.slow
def test_cross_table_mc_rows_carry_standard_errors_and_agree():
    stats = X.cross_stats(method="both", trials=N, seed=3)
    t = X.cross_table(stats=stats)
    assert set(t["method"]) == {"exact", "mc"}
    mc = t[t["method"] == "mc"]
    assert len(mc) == 10 * len(SYSTEMS)
    inner = mc[(mc["p_side0"] > 0) & (mc["p_side0"] < 1)]
    assert (inner["se_side0"] > 0).all()
    p0 = inner["p_side0"]
    np.testing.assert_allclose(inner["se_side0"], np.sqrt(p0 * (1 - p0) / N))
    assert (mc["rounds_se"] > 0).all()
    ex = t[t["method"] == "exact"].set_index(["matchup", "system"])
    for _, row in mc.iterrows():
        p = ex.loc[(row["matchup"], row["system"]), "p_side0"]
        assert abs(row["p_side0"] - p) <= 5 * math.sqrt(p * (1 - p) / N) + 1 / N


def test_cross_mc_only():
    t = X.cross_table(method="mc", trials=1000, seed=1)
    assert (t["method"] == "mc").all()
    assert (t["trials"] == 1000).all()


def test_falls_back_to_mc_when_exact_is_refused(monkeypatch):
    from analysis.combat import lethality

    real = lethality.run_fight

    def refuse(system, s0, s1, method="mc", **kw):
        if method == "exact" and system == "d20_degrees":
            raise InputError("duel_exact: more than 400000 states")
        return real(system, s0, s1, method, **kw)

    monkeypatch.setattr(lethality, "run_fight", refuse)
    t = X.cross_table(method="exact", trials=500, seed=2)
    d20 = t[t["system"] == "d20_degrees"]
    assert (d20["method"] == "mc").all()
    assert d20["note"].str.contains("exact unavailable").all()
    assert (t[t["system"] != "d20_degrees"]["method"] == "exact").all()


def test_group_table_2v2_3v1():
    summary, standing = X.group_table(trials=600, seed=4)
    assert len(summary) == 2 * len(SYSTEMS)
    assert set(summary["fight"]) == {"2v2", "3v1"}
    assert (summary["se_side0"] > 0).all()
    first = standing[standing["round"] == 0]
    assert (first["standing_share"] == 1.0).all()


@pytest.mark.slow
def test_cross_plot_uses_system_colours():
    from matplotlib.colors import to_hex

    stats = X.cross_stats(method="exact")
    fig = X.cross_plot(stats)
    axes = fig.get_axes()
    assert len(axes) == 2 * len(X.load_cross()["matchups"])
    colours = {to_hex(line.get_color()).upper() for line in axes[0].get_lines()}
    assert colours == {SYSTEM_COLORS[s].upper() for s in SYSTEMS}


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (
            lambda s: s.replace(
                "[matchups.melee_equal.percentile]\n", "[matchups.melee_equal.x]\n"
            ),
            "matchups.melee_equal.percentile: missing",
        ),
        (
            lambda s: s.replace(
                'a = { archetype = "competent", weapon = "knife" }',
                'a = { archetype = "competent", weapon = "spoon" }',
                1,
            ),
            "matchups.melee_equal.middle_3d10.a: competent.weapon: unknown weapon 'spoon'",
        ),
        (
            lambda s: s.replace('side1 = ["expert"]', 'side1 = ["legend"]'),
            "groups.3v1: unknown rung 'legend'",
        ),
        (lambda s: s + "\n[extra]\nx = 1\n", "cross.toml: extra: unknown key"),
        (lambda s: s + "\n[[[", "cross.toml: not valid TOML"),
    ],
)
def test_bad_cross_files(tmp_path, edit, needle):
    p = tmp_path / "cross.toml"
    p.write_text(edit(X.DATA_FILE.read_text()))
    with pytest.raises(InputError) as err:
        X.load_cross(p)
    assert needle in str(err.value)


def test_labels_name_archetype_overrides_and_weapon():
    """Issue §4: every table names the gear of each side next to its numbers."""
    labels = X.load_cross()["labels"]
    assert labels["melee_equal"]["percentile"] == ("competent (weapon=knife)",) * 2
    assert (
        labels["melee_equal"]["dice_pool_6"][0]
        == "competent_knife_fighter (weapon=light_melee, tactic=focus)"
    )
    # no weapon override in the file: the archetype's own weapon is named
    assert labels["melee_equal"]["dice_pool_7"][0] == "competent_swordsman (weapon=light_melee)"


def _hand_stats():
    """Exact stats per duel: A wins 0.6, B 0.3, neither 0.1; the losers of A's wins end
    0.3 dead / 0.1 dying / 0.2 out, those of B's wins 0 / 0.1 / 0.2."""
    from engines.fight import FightStats

    st = FightStats.empty("x", 10, dtype=float)
    st.outcome[:] = [0.6, 0.3, 0.1]
    st.rounds[2, 0], st.rounds[3, 1], st.rounds[10, 2] = 0.6, 0.3, 0.1
    st.standing[0] = [1.0, 1.0]
    st.loser_fate[:] = [[0.3, 0.1, 0.2], [0.0, 0.1, 0.2]]
    st.notes["aftermath"] = "leave"
    return st


def test_cross_table_fate_columns_hand_built():
    """dead 0.3/0.9, dying 0.2/0.9, out 0.4/0.9 among decided fights; exact SE 0;
    a and b carry the labels; the aftermath column names the policy."""
    stats = {("melee_equal", s, "exact"): (_hand_stats(), "") for s in SYSTEMS}
    t = X.cross_table(stats=stats).set_index("system")
    np.testing.assert_allclose(t["p_loser_dead"], 1 / 3)
    np.testing.assert_allclose(t["p_loser_dying"], 2 / 9)
    np.testing.assert_allclose(t["p_loser_out"], 4 / 9)
    assert (t[["se_loser_dead", "se_loser_dying", "se_loser_out"]] == 0).all().all()
    assert (t["aftermath"] == "leave").all()
    assert "p_loser_dies" not in t.columns
    assert t.loc["middle_3d10", "a"] == "competent (weapon=knife)"
    with pytest.raises(InputError, match="aftermath leave, not finish"):
        X.cross_table(stats=stats, aftermath="finish")


def test_cross_stats_bad_aftermath():
    with pytest.raises(InputError, match="aftermath: 'bury' is not allowed"):
        X.cross_stats(aftermath="bury")


@pytest.mark.slow
def test_matchups_that_start_apart():
    """RULES.md "Distance, movement and cover": a matchup's ``distances`` gives one
    matchup per starting distance, run under the combat variant ``distance``."""
    from analysis.combat import lethality

    t = X.cross_table(method="exact")
    sc = t[t["matchup"].str.startswith("shooter_vs_charger_")]
    assert sorted(set(sc["distance"])) == [0, 10, 20, 40]
    # the same duel as ``rpg-balance duel SYSTEM A B --table distance``
    for system in SYSTEMS:
        mine = sc[sc["system"] == system].sort_values("distance")
        raw = X.read_toml(X.DATA_FILE, "x")["matchups"]["shooter_vs_charger"][system]
        ref = lethality.distance_table(system, raw["a"], raw["b"], [0, 10, 20, 40])
        np.testing.assert_allclose(mine["p_side0"], ref["p_side0"], atol=1e-12)
    # a charger has ground to cover: the shooter does better from 40 m than engaged in
    # every system (each system's own race; the tests of tests/test_distance_*.py hold
    # the rules)
    wide = sc.pivot(index="system", columns="distance", values="p_side0")
    assert (wide[40] > wide[0]).all()
    # dice_pool_7, A13 + AT3: at 40 m the unarmoured shooter's pistol is at long range
    # (AT-g1: -4 dice), its pool falls to a chance die (A-g1: one success at most),
    # and 1 success + the pistol's 1 is 2 damage, all of it ignored by heavy modern
    # armour's ballistic 3: it never wins, while the armoured one still hurts it.
    arm = t[t["matchup"] == "armoured_shooter_40m"].set_index("system")
    assert arm.loc["dice_pool_7", "p_side1"] == 0.0
    assert arm.loc["dice_pool_7", "p_side0"] > 0.9
    # systems without armour rules: the same shooter on both sides, said in the note
    for system in ("dice_pool_6", "middle_3d10"):
        assert "no armour" in arm.loc[system, "note"]
        assert abs(arm.loc[system, "p_side0"] - arm.loc[system, "p_side1"]) < 1e-9


def test_distances_are_checked(tmp_path):
    text = X.DATA_FILE.read_text(encoding="utf-8")
    for bad, needle in (
        ("[0, -5]", "-5: expected whole metres"),
        ("[10, 10]", "listed twice"),
        ('"far"', "expected a list"),
    ):
        p = tmp_path / "cross.toml"
        p.write_text(
            text.replace("distances = [0, 10, 20, 40]", f"distances = {bad}", 1), encoding="utf-8"
        )
        with pytest.raises(InputError, match=needle):
            X.load_cross(p)


def _label_parts(label: str) -> tuple[str, dict]:
    """``competent (weapon=knife, tactic=focus)`` → ``("competent", {...})``."""
    name, _, rest = label.partition(" (")
    over = dict(kv.split("=", 1) for kv in rest.rstrip(")").split(", ")) if rest else {}
    return name, over


def test_group_labels_name_the_gear_the_fighters_carry():
    """Issue 29 §6a: a group-fight row names the weapon its fighters carry (the
    ladder's, e.g. middle_3d10 knife, d20_degrees light_melee), not the archetype's own
    (baton, heavy_melee): the fighter the label describes is the fighter that fought."""
    from analysis.combat.archetypes import combatant, weapon_name

    spec = X.load_cross()
    summary, _ = X.group_table(trials=50, seed=1)
    checked = set()
    for _, row in summary.iterrows():
        g = spec["groups"][row["fight"]]
        for rungs, text in ((g.side0, row["side0"]), (g.side1, row["side1"])):
            labels = (
                text.split(", ")
                if "tactic" not in text
                else [t + ")" for t in text.rstrip(")").split("), ")]
            )
            assert len(labels) == len(rungs)
            for rung, label in zip(rungs, labels, strict=True):
                name, over = _label_parts(label)
                fought = spec["ladder"][row["system"]][rung]
                assert combatant(row["system"], name, over) == fought, label
                checked.add((row["system"], over["weapon"]))
    assert ("middle_3d10", "knife") in checked
    assert ("d20_degrees", "light_melee") in checked
    # the archetypes' own weapons differ, so the old labels would fail the check above
    assert weapon_name("middle_3d10", "competent") == "baton"
    assert combatant("middle_3d10", "competent") != spec["ladder"]["middle_3d10"]["competent"]


@pytest.mark.parametrize(
    "given", [{"dice_pool_7": ["distance=20"]}, {"percentile": {"distance": 40}}]
)
def test_a_distance_variant_is_refused(given):
    """Issue 29 §6c: a cross-combat duel starts at its matchup's distance (the file's
    ``distances``); a ``distance`` variant would label the 0 m and 40 m rows with one
    distance and fight them at another, so it is one InputError naming it."""
    with pytest.raises(InputError) as err:
        X.cross_stats(variants=given)
    system = next(iter(given))
    assert str(err.value).startswith(f"{system}:distance=")
    assert "\n" not in str(err.value)
    X.refuse_distance({"dice_pool_7": ["aftermath=finish"]})  # other variants pass


def test_cli_refuses_a_distance_variant_in_one_line(capsys):
    from cli.main import main

    assert main(["cross-combat", "--variant", "dice_pool_7:distance=20"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "--variant dice_pool_7:distance=20" in err
