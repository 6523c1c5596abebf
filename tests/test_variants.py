"""The variant framework: every gap is a named switch with a default and a rule id."""

import dataclasses
import string

import pytest

from engines.errors import InputError
from engines.system import BUILT_IN, registry
from engines.variants import describe, parse_variants

#: Variant names the engine-core issue requires, with their defaults.
REQUIRED = {
    "dice_pool_7": {"threshold": 7, "again": 10, "chance_die": True},
    "dice_pool_6": {"threshold": 6, "criticals": True},
    "percentile": {"criticals": True},
    "middle_3d10": {"disadvantage": "lowest"},
    "d20_degrees": {"natural_1_fails": True, "natural_20_degree": True},
}


@pytest.mark.parametrize("system", list(REQUIRED))
def test_required_variants_and_defaults(system):
    v = registry()[system].checks.variants()
    for name, default in REQUIRED[system].items():
        assert getattr(v, name) == default


@pytest.mark.parametrize("system", list(registry()))
def test_every_variant_cites_a_rule_id(system):
    """Every switch cites a rule id and says what it does: the built-ins' ids are RULES.md
    sections A–E; a plug-in cites its own rules (pbta_2d6: ``P2``)."""
    sections = "ABCDE" if system in BUILT_IN else string.ascii_uppercase
    for row in describe(registry()[system].checks.variants()):
        assert row["rule"][:1] in set(sections), row
        assert row["doc"]


def test_parse_values_from_strings():
    v = parse_variants(
        registry()["dice_pool_7"].checks.variants, ["again=none", "chance_die=false", "threshold=8"]
    )
    assert (v.again, v.chance_die, v.threshold) == (None, False, 8)
    assert v.rule().again == 11  # no explosion


@pytest.mark.parametrize(
    ("given", "fragment"),
    [
        (
            ["agian=9"],
            r"unknown variant 'agian' for dice_pool_7 \(did you mean 'again'\?\); "
            "known:",
        ),
        (["again=7"], "choose 10 | 9 | 8 | none"),
        (["chance_die=maybe"], "expected true or false"),
        (["threshold"], "expected NAME=VALUE"),
        (["threshold=eleven"], "not allowed"),
    ],
)
def test_bad_variants_are_clear_errors(given, fragment):
    with pytest.raises(InputError, match=fragment.replace("|", r"\|")):
        parse_variants(registry()["dice_pool_7"].checks.variants, given)


def _variant_classes():
    from engines.campaign import campaign_systems

    for sid, system in registry().items():
        yield f"{sid} checks", system.checks.variants
        if system.combat is not None:
            yield f"{sid} combat", system.combat.engine().Variants
    for sid in campaign_systems():
        yield f"{sid} campaign", registry()[sid].campaign.engine().Variants


@pytest.mark.parametrize(("label", "cls"), list(_variant_classes()))
def test_every_choice_parses_from_text(label, cls):
    """Every choice of every variant round-trips through NAME=VALUE (the CLI path),
    the word "none" included where it is a choice of its own (percentile's
    luck_spending, d20_degrees' combat variants)."""
    for f in dataclasses.fields(cls):
        for choice in f.metadata["choices"] or ():
            text = "none" if choice is None else str(choice).lower()
            assert getattr(parse_variants(cls, [f"{f.name}={text}"]), f.name) == choice, (
                label,
                f.name,
                choice,
            )


def test_variant_objects_are_frozen():
    v = registry()["percentile"].checks.variants()
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.criticals = False


def test_b14_degeneration_rules():
    """B14: +1 per 5 points of lore, +1 per aspect on a major use, +1 per total loss to the
    Mythos; subtracted from later stability losses; lost at 10."""
    from engines.systems.middle_3d10 import checks as b

    assert b.degeneration(14) == 2
    assert b.degeneration(15, major_aspect_uses=1, lost_all_to_mythos=1) == 5
    assert list(b.stability_loss([1, 3, 7], 3)) == [0, 0, 4]
    assert not b.is_lost(9)
    assert b.is_lost(10)
    with pytest.raises(InputError, match="occultism_and_arcane"):
        b.degeneration(-1)


def _variant_classes() -> dict[str, type]:
    """Every variant dataclass: each system's checks, combat engine and campaign
    mechanics."""
    from engines.campaign import mechanics
    from engines.system import registry

    out = {}
    for sid, spec in registry().items():
        out[f"{sid} checks"] = spec.checks.variants
        if spec.combat is not None:
            out[f"{sid} combat"] = spec.combat.engine().Variants
        if spec.campaign is not None:
            for name, mech in mechanics(sid).items():
                out[f"{sid} campaign {name}"] = mech.variants
    return out


def _spelling(value) -> str:
    """How a value is written on the command line and in a TOML variants table."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


VARIANT_CLASSES = _variant_classes()


@pytest.mark.parametrize("name", list(VARIANT_CLASSES))
def test_every_value_written_as_text_parses_back(name):
    """Each variant's default and each of its choices, written as ``NAME=VALUE``, parses to
    itself; so does the whole object's field mapping (a matchup file's variants merged
    with ``--variant`` go through that round trip). E-g16 ``surprise=none`` was refused
    with "'none' is not allowed; choose none | side0 | side1"."""
    cls = VARIANT_CLASSES[name]
    default = cls()
    for f in dataclasses.fields(cls):
        values = [f.default, *(f.metadata.get("choices") or ())]
        for value in values:
            got = parse_variants(cls, [f"{f.name}={_spelling(value)}"])
            assert getattr(got, f.name) == value, (f.name, value)
    fields = {f.name: getattr(default, f.name) for f in dataclasses.fields(cls)}
    assert parse_variants(cls, fields) == default


def test_none_is_a_word_where_it_is_a_choice():
    """``none`` is the Python None where None is a choice (A1 ``again``) and the word
    itself where the word is (E-g16 ``surprise``, D-g22 ``luck_spending``)."""
    from engines.campaign import mechanic
    from engines.systems.d20_degrees.combat import Variants as D20Combat

    assert parse_variants(registry()["dice_pool_7"].checks.variants, ["again=none"]).again is None
    assert parse_variants(D20Combat, ["surprise=none"]).surprise == "none"
    assert parse_variants(D20Combat, ["surprise=None"]).surprise == "none"
    luck = mechanic("percentile", "luck").variants
    assert parse_variants(luck, ["luck_spending=none"]).luck_spending == "none"
