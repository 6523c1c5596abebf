"""Section: at a glance — the five systems side by side on one page.

One table, a row per system, with the figures a designer compares first: a competent
character against an average task and an expert against a hard one (the common ladder,
:func:`analysis.checks.ladders.ladder_table`), luck in rungs
(:func:`~analysis.checks.ladders.swinginess`), a novice's upset of a competent
character in one opposed roll (:func:`~analysis.checks.ladders.upset_table`) and in a
duel, the even duel's length, one hit dropping an equal and the loser ending dead (the
cross-combat table's even duel), three novices against an expert (the group fights),
alive after three fights (campaign attrition) and the balance guardrails failed (Key
findings' audit) — each from the frame its own section shows, never recomputed another
way. Under the table the commands printing each column; then one paragraph per system:
what it is, its defining numbers, the rule that explains them (the system's
``Report.glance`` text) and its failed guardrail with the audit's cure.
"""

from __future__ import annotations

import shlex
from typing import Any

import pandas as pd

from analysis.frames import each_row
from analysis.glossary import figure_phrase
from analysis.text import made
from engines.system import registry
from reports.i18n import N_, _, decimal, text
from reports.sections.combat_common import EVEN_DUEL, UPSET_PAIRS, combat_frames
from reports.sections.common import table_block, variant_map
from reports.sections.key_findings import check_variant_args, combat_options, fought_settings
from reports.settings import ReportSettings
from reports.structure import Reading, Section

__all__ = [
    "ATTRITION_K",
    "CELLS",
    "COLUMNS",
    "UPSET",
    "glance_commands",
    "glance_frame",
    "glance_paragraph",
    "glance_view",
    "paragraph_commands",
    "section_glance",
    "three_novices_fight",
]

#: The figures of the table (machine key → shown header, an English msgid).
COLUMNS = {
    "competent_average": N_("competent vs average task"),
    "expert_hard": N_("expert vs hard task"),
    "luck_rungs": N_("luck (rungs)"),
    "upset_roll_attacking": N_("upset, one roll (attacking)"),
    "upset_roll_defending": N_("upset, one roll (defending)"),
    "upset_duel": N_("upset, duel"),
    "duel_rounds": N_("even duel (rounds)"),
    "one_hit_drops": N_("one hit drops an equal"),
    "loser_dead": N_("the loser ends dead"),
    "three_novices": N_("three novices beat an expert"),
    "alive_after_3": N_("alive after three fights"),
    "guardrails_failed": N_("guardrails failed"),
}

#: The rungs of the upset figures (weaker, stronger) and of the ladder cells.
UPSET = ("novice", "competent")
CELLS = {"competent_average": ("competent", "average"), "expert_hard": ("expert", "hard")}
#: Fights of the attrition figure.
ATTRITION_K = 3


def three_novices_fight(settings: ReportSettings) -> str | None:
    """The group fight of the cross-combat file with three novices on side 0 and one
    expert on side 1 (None: the file has none)."""
    from analysis.combat import cross_combat

    for gid, g in cross_combat.load_cross(settings.cross_combat)["groups"].items():
        if list(g.side0) == ["novice"] * 3 and list(g.side1) == ["expert"]:
            return gid
    return None


def glance_frame(settings: ReportSettings) -> pd.DataFrame:
    """One row per system of the report, the :data:`COLUMNS` figures as numbers (NaN
    where a system has no such figure), plus ``guardrails`` (how many apply to the
    system) and ``se_three_novices`` (the group fight's standard error).

    Every figure is read from the frame its section shows: the ladder and upsets of
    :mod:`reports.sections.ladders` / :mod:`~reports.sections.combat_upsets`, the
    cross-combat, upset and group frames of
    :func:`reports.sections.combat_common.combat_frames`, the attrition table of
    :mod:`~reports.sections.campaign` and the audit of
    :func:`reports.sections.key_findings.findings_frame`."""
    from analysis.checks.ladders import ladder_table, swinginess, upset_table
    from reports.sections.campaign import attrition_table
    from reports.sections.key_findings import findings_frame

    variants = variant_map(settings)
    rows: dict[str, dict[str, Any]] = {s: {"system": s} for s in settings.systems}
    cells = ladder_table(variants=variants)
    for key, (comp, diff) in CELLS.items():
        part = cells[(cells["competence"] == comp) & (cells["difficulty"] == diff)]
        for r in each_row(part):
            if r.system in rows:
                rows[r.system][key] = float(r.p)
    for r in each_row(swinginess(variants=variants)):
        if r.system in rows:
            rows[r.system]["luck_rungs"] = float(r.sd_in_rungs)
    ups = upset_table(variants=variants)
    ups = ups[(ups["weaker"] == UPSET[0]) & (ups["stronger"] == UPSET[1])]
    for r in each_row(ups):
        if r.system in rows:
            rows[r.system]["upset_roll_attacking"] = float(r.p_upset_attacking)
            rows[r.system]["upset_roll_defending"] = float(r.p_upset_defending)
    fought = fought_settings(settings)
    if fought is not None:
        data = combat_frames(fought)
        up = data["upsets"]
        up = up[(up["weaker"] == UPSET[0]) & (up["stronger"] == UPSET[1])]
        for r in each_row(up):
            rows[r.system]["upset_duel"] = float(r.p_fight)
        even = data["cross"][data["cross"]["matchup"] == EVEN_DUEL]
        for r in each_row(even):
            rows[r.system].update(
                duel_rounds=float(r.rounds_mean),
                one_hit_drops=float(r.one_hit_incap_a_on_b),
                loser_dead=float(r.p_loser_dead),
            )
        gid = three_novices_fight(settings)
        groups = data["groups"]
        for r in each_row(groups[groups["fight"] == gid]):
            rows[r.system].update(
                three_novices=float(r.p_side0), se_three_novices=float(r.se_side0)
            )
    attrition = attrition_table(settings.systems)
    for _i, row in attrition.iterrows():
        rows[row["system"]]["alive_after_3"] = float(row[f"k={ATTRITION_K}"])
    audit = findings_frame(settings)
    for system, part in audit.groupby("system", sort=False):
        if system in rows:
            system = str(system)
            rows[system]["guardrails_failed"] = int((part["status"] == "fail").sum())
            rows[system]["guardrails"] = len(part)
    frame = pd.DataFrame(list(rows.values()))
    for key in [*COLUMNS, "guardrails", "se_three_novices"]:
        if key not in frame:
            frame[key] = float("nan")
    return frame[["system", *COLUMNS, "guardrails", "se_three_novices"]]


# --------------------------------------------------------------------------- words

#: How each figure is shown: as a probability (the glossary's percentages and odds in
#: words), a number with one decimal, or a count of guardrails.
_PROBABILITY = {
    "competent_average",
    "expert_hard",
    "upset_roll_attacking",
    "upset_roll_defending",
    "upset_duel",
    "one_hit_drops",
    "loser_dead",
    "three_novices",
    "alive_after_3",
}


def _shown(key: str, value, row) -> str:
    if value is None or pd.isna(value):
        return "—"
    if key in _PROBABILITY:
        return text(figure_phrase("p_", float(value)))
    if key in ("duel_rounds", "luck_rungs"):
        return decimal(float(value), 1)
    return _("{failed} of {total}").format(
        failed=decimal(int(value)), total=decimal(int(row["guardrails"]))
    )


def glance_view(frame: pd.DataFrame) -> pd.DataFrame:
    """The table as shown: the figures in words (percentages in the language's style,
    odds below one in a thousand in words, one decimal for rounds and rungs), headers
    translated."""
    out = pd.DataFrame({"system": frame["system"]})
    for key, header in COLUMNS.items():
        out[_(header)] = [_shown(key, row[key], row) for _i, row in frame.iterrows()]
    return out


def _cmd(*parts: str) -> str:
    return " ".join(shlex.quote(p) if p and not p.startswith("--") else p for p in parts)


def glance_commands(settings: ReportSettings, frame: pd.DataFrame | None = None) -> dict:
    """``{"table": [(headers, command), …], system: [(header, command), …]}``: the
    ``rpg-balance`` commands printing the table's figures — one command for a column
    that covers every system, one per system where the command takes a system."""
    from analysis.combat import cross_combat

    cross = [] if settings.cross_combat is None else ["--cross-combat", str(settings.cross_combat)]
    ladder = check_variant_args(settings)
    table = [
        (
            (COLUMNS["competent_average"], COLUMNS["expert_hard"]),
            _cmd("rpg-balance", "ladder", *ladder, "--columns", "system,competence,difficulty,p"),
        ),
        (
            (COLUMNS["luck_rungs"],),
            _cmd(
                "rpg-balance",
                "ladder",
                "--table",
                "swinginess",
                *ladder,
                "--columns",
                "system,sd_in_rungs",
            ),
        ),
        (
            (COLUMNS["upset_roll_attacking"], COLUMNS["upset_roll_defending"]),
            _cmd(
                "rpg-balance",
                "ladder",
                "--table",
                "upsets",
                *ladder,
                "--columns",
                "system,weaker,stronger,p_upset_attacking,p_upset_defending",
            ),
        ),
        (
            (COLUMNS["duel_rounds"], COLUMNS["one_hit_drops"], COLUMNS["loser_dead"]),
            _cmd(
                "rpg-balance",
                "cross-combat",
                *cross,
                *combat_options(settings),
                "--trials",
                str(settings.combat_trials),
                "--seed",
                str(settings.seed),
                "--columns",
                "matchup,system,rounds_mean,one_hit_incap_a_on_b,p_loser_dead",
            ),
        ),
        (
            (COLUMNS["three_novices"],),
            _cmd(
                "rpg-balance",
                "cross-combat",
                "--table",
                "groups",
                *cross,
                *combat_options(settings),
                "--trials",
                str(settings.combat_trials),
                "--seed",
                str(settings.seed),
                "--columns",
                "fight,system,p_side0,se_side0",
            ),
        ),
        (
            (COLUMNS["guardrails_failed"],),
            _cmd(
                "rpg-balance",
                "audit",
                *([str(settings.guardrails)] if settings.guardrails is not None else []),
                "--no-suggest",
                "--columns",
                "guardrail,system,value,min,max,status",
            ),
        ),
    ]
    out: dict = {"table": table}
    spec = cross_combat.load_cross(settings.cross_combat)
    fought = fought_settings(settings)
    fought_ids = () if fought is None else fought.systems
    for system in settings.systems:
        mine = []
        named = spec["ladder_specs"].get(system, {})
        if UPSET[0] in named and UPSET[1] in named and system in fought_ids:
            # the upsets' stream: seed + 1000 (k + 1) + j, k the system's place among
            # the fought systems, j the pair's place in UPSET_PAIRS
            k, j = fought_ids.index(system), UPSET_PAIRS.index(UPSET)
            duel = _duel_command(
                system,
                named[UPSET[0]],
                named[UPSET[1]],
                settings,
                seed=settings.seed + 1000 * (k + 1) + j,
            )
            if duel:
                mine.append((COLUMNS["upset_duel"], duel))
        alive: Any = (
            None if frame is None else frame.set_index("system").loc[system, "alive_after_3"]
        )
        if frame is None or not pd.isna(alive):
            mine.append(
                (
                    COLUMNS["alive_after_3"],
                    _cmd(
                        "rpg-balance",
                        "campaign",
                        system,
                        "attrition",
                        "--sessions",
                        str(ATTRITION_K),
                        "--columns",
                        "session,p_able",
                    ),
                )
            )
        out[system] = mine
    return out


#: Fighter keys of a cross-combat entry the duel command can set (archetype and the
#: per-side options); an entry with others (trait overrides) gets no command.
_DUEL_OPTIONS = {"weapon": "--weapon", "armour": "--armour", "tactic": "--tactic"}


def _duel_command(system: str, a: dict, b: dict, settings: ReportSettings, seed: int) -> str:
    """``rpg-balance duel`` of the weaker rung (side 0) against the stronger, as the
    upsets play it (:func:`reports.sections.combat_common.combat_frames`: exact, Monte
    Carlo with the report's seed where the engine has no exact solver)."""
    parts = ["rpg-balance", "duel", system, str(a["archetype"]), str(b["archetype"])]
    for side, fighter in (("a", a), ("b", b)):
        for key, value in fighter.items():
            if key == "archetype":
                continue
            if key not in _DUEL_OPTIONS:
                return ""
            parts += [f"{_DUEL_OPTIONS[key]}-{side}", str(value)]
    parts += combat_options(settings, per_system=system)
    fought = fought_settings(settings)
    assert fought is not None  # named for a system the combat sections fight
    data = combat_frames(fought)["upsets"]
    row = data[
        (data["system"] == system) & (data["weaker"] == UPSET[0]) & (data["stronger"] == UPSET[1])
    ]
    if len(row) and row["method"].iloc[0] == "mc":
        parts += ["--method", "mc", "--trials", str(settings.combat_trials), "--seed", str(seed)]
    return _cmd(*parts, "--columns", "p_side0")


def _first_cure(suggestion) -> str:
    """The audit's best cure as its edit ("both fighters' Vigor (B9) from 4 to 8": what
    it makes of the guardrail, its alternatives and side effects are in Key findings),
    or that no one-knob edit cures it, in the report's language."""
    from analysis.text import Text

    sentence = made(suggestion)
    if sentence is not None and sentence.template.startswith("no "):
        # why, the ranges searched and the knobs held are in Key findings
        return _("no one-knob edit within the ranges searched cures it")
    for _level in range(2):  # the cures, then the best cure's parts
        if (
            sentence is None
            or not sentence.template.startswith("{item0}")
            or "item0" not in sentence.fields
        ):
            break
        sentence = made(sentence.fields["item0"])
    if sentence is not None and "cure" in sentence.fields:  # at the edge of its range
        sentence = made(sentence.fields["cure"])
    if sentence is not None and {"knob", "current", "value"} <= set(sentence.fields):
        sentence = Text(
            N_("{knob} from {current} to {value}"),
            **{k: sentence.fields[k] for k in ("knob", "current", "value")},
        )
    return text(sentence if sentence is not None else suggestion)


def glance_paragraph(system: str, row, audit: pd.DataFrame) -> str:
    """One paragraph: the system's ``Report.glance`` text (what it is, its defining
    numbers, the rule behind them), filled with the table's figures, then its first
    failed guardrail, its value and limits, with the audit's best cure as an edit (or
    that none fails); the fighters, what the cure makes of the figure and its side
    effects are in Key findings."""
    from reports.sections.finding_words import bounds_words

    figures = {key: _shown(key, row[key], row) for key in COLUMNS}
    glance = registry()[system].report.glance
    said = (
        _(glance).format(**figures)
        if glance
        else _(registry()[system].report.summary or registry()[system].name)
    )
    fails = audit[(audit["system"] == system) & (audit["status"] == "fail")]
    if fails.empty:
        risk = _("No balance guardrail fails.")
    else:
        r = fails.iloc[0]
        risk = _(
            "Biggest risk: {guardrail} fails at {value}, {bounds}. The audit's cure: "
            "{cure} (Key findings)."
        ).format(
            guardrail=text(r["guardrail"]),
            value=text(figure_phrase(r["metric"], r["value"], r["se"])),
            bounds=bounds_words(r["min"], r["max"], r["metric"]),
            cure=_first_cure(r["suggestion"]),
        )
    return f"{system}: {said} {risk}"


def paragraph_commands(system: str, commands: dict) -> str:
    """The small print of a system's paragraph: the system's own commands (its upset
    duel, its attrition). The table's figures the paragraph quotes and its failed
    guardrail's value and limits are printed by the table's commands, shown once above
    the paragraphs (the page stays one page)."""
    return " ; ".join(cmd for _h, cmd in commands.get(system, []))


def section_glance(settings: ReportSettings) -> Section:
    """The report's first section: one table of the systems' headline figures with the
    commands printing them, then one paragraph per system."""
    from reports.sections.key_findings import findings_frame

    frame = glance_frame(settings)
    audit = findings_frame(settings)
    commands = glance_commands(settings, frame)
    view = glance_view(frame)
    small = " ; ".join(cmd for _h, cmd in commands["table"])
    caption = _(
        "P(success) on the common ladder; luck: the competence rungs one "
        "standard deviation of the dice is worth; upsets: a novice against a "
        "competent character; the even duel: two competent fighters with light "
        "melee weapons; three novices against one expert: Monte Carlo, {trials} "
        "fights; alive: a competent fighter after three fights; a dash: no such "
        "figure."
    ).format(trials=decimal(settings.combat_trials))
    reading = [Reading(_("The commands printing the table's columns, in its order:"), small)]
    for system in settings.systems:
        row = frame.set_index("system").loc[system]
        reading.append(
            Reading(glance_paragraph(system, row, audit), paragraph_commands(system, commands))
        )
    blocks = [
        table_block(
            "glance", _("The systems side by side"), view, caption, index=("system",), full=frame
        )
    ]
    return Section("glance", _("At a glance"), reading, blocks, blocks_first=True)
