"""The plug-in's own test: rpg-balance's conformance checks, one test per check (README
"Add your own system")."""

from analysis.conformance import parametrize_with_checks


@parametrize_with_checks(["pbta_2d6"])
def test_conforms(system, check):
    check(system)
