"""The plug-in's own test: rpg-balance's conformance check (README "Add your own system")."""

from analysis.conformance import check_system


def test_conforms():
    check_system("pbta_2d6")
