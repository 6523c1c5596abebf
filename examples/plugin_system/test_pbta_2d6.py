"""The plug-in's own test: rpg-balance's conformance checks, one test per check (rpg-balance's
docs/howto/plugin.md, "Check your system")."""

from analysis.conformance import parametrize_with_checks


@parametrize_with_checks(["pbta_2d6"])
def test_conforms(system, check):
    check(system)
