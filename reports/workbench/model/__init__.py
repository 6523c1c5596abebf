"""The workbench's state and numbers, without a web framework.

A view of the page is a :class:`PageState` (:mod:`.state`): the tab on screen, the
language, and one state per tab (:class:`CheckState`, :class:`DuelState`,
:class:`AuditState`). It travels in the address bar as a flat query (:func:`to_query` /
:func:`parse_query`): every value read back goes through the same validation as the
command line (:mod:`.validation`: the system registry,
:func:`engines.variants.parse_variants`, the archetype loader, the bounds of
:mod:`analysis.limits`); a bad value is dropped for its default with one message, never
an exception. The page reads no file named in the address: the audit reads the shipped
guardrails, the file named by ``rpg-balance serve --guardrails``, or a file uploaded
through the page.

The numbers of each tab (:mod:`.checks`, :mod:`.duel`, :mod:`.audit`) come from the
functions the command line calls (:func:`analysis.checks.curves.success_curves`,
:func:`analysis.workflow.solvers.solve_difficulty`,
:func:`analysis.combat.lethality.duel_stats` / ``one_hit``,
:func:`analysis.workflow.audit.evaluate`), under :data:`ENGINE_LOCK`: numba's default
threading layer (workqueue) must not be entered by two threads at once, and the server
answers several browser tabs from a thread pool. Each result carries the ``rpg-balance``
command that prints its numbers (:mod:`analysis.workflow.audit.reproduce`). This package
gathers the public names of its modules, so ``model.X`` reads as one namespace.
"""

from __future__ import annotations

import contextlib

from engines.errors import InputError

from .audit import (
    AUDIT_COLUMNS,
    audit_command,
    audit_result,
    load_upload,
)
from .checks import (
    CheckResult,
    check_figure,
    check_result,
    png_bytes,
)
from .compare import (
    DUEL_FIGURES,
    ONE_HIT_FIGURES,
    audit_flips,
    check_table,
    duel_table,
    se_difference,
    se_note,
    shared_rolls,
)
from .distance import (
    DistanceResult,
    check_distances,
    distance_command,
    distance_figure,
    distance_result,
    distances_text,
)
from .duel import (
    DuelResult,
    duel_command,
    duel_figure,
    duel_result,
    duel_sentence,
    duel_variant_map,
    side_spec,
)
from .edits import (
    EDIT_SEP,
    check_edits,
    check_traits,
    edit_args,
    edit_list,
    edit_text,
    load_rules_upload,
    own_traits,
    page_rules,
    read_edits,
    rule_fields,
    rules_file,
    value_text,
    with_edit,
)
from .groups import (
    GROUP_FIGURES,
    SCENARIO_DIR,
    GroupResult,
    group_command,
    group_result,
    load_matchup,
    load_matchup_upload,
    shipped_scenarios,
)
from .sensitivity import (
    SensitivityRun,
    sensitivity_command,
    sensitivity_run,
)
from .state import (
    ADDRESS,
    ALIASES,
    ALL,
    AUDIT_SOURCES,
    CHECK_KEYS,
    DEFAULT_DISTANCES,
    DEFAULT_GROUP_TRIALS,
    DEFAULT_ROUND_CAP,
    DEFAULT_SEED,
    DEFAULT_TRIALS,
    DUEL_KEYS,
    ENGINE_LOCK,
    GROUP_KEYS,
    MAX_PAGE_SEED,
    MAX_UPLOAD,
    METHODS,
    QUERY_KEYS,
    SENSITIVITY_SOURCES,
    TABS,
    UNPINNED,
    AddressKey,
    AuditState,
    Cancelled,
    CheckState,
    DuelState,
    FairLock,
    GroupState,
    PageState,
    SensitivityState,
    address_table,
    check_systems,
    check_variant_fields,
    combat_systems,
    combat_variant_fields,
    default_check,
    default_duel,
    default_state,
    pairs_text,
    pin_text,
    to_query,
    url_param,
    variant_fields,
    variant_text,
)
from .validation import (
    check_aftermath,
    check_archetype,
    check_axes,
    check_competence,
    check_distance_m,
    check_gear,
    check_method,
    check_target,
    check_variants,
    duel_variants,
    gear_options,
    parse_query,
)

__all__ = [
    "ADDRESS",
    "ALIASES",
    "ALL",
    "AUDIT_COLUMNS",
    "AUDIT_SOURCES",
    "CHECK_KEYS",
    "DEFAULT_ROUND_CAP",
    "DEFAULT_SEED",
    "DEFAULT_TRIALS",
    "DUEL_KEYS",
    "ENGINE_LOCK",
    "MAX_PAGE_SEED",
    "MAX_UPLOAD",
    "METHODS",
    "QUERY_KEYS",
    "TABS",
    "AddressKey",
    "AuditState",
    "Cancelled",
    "CheckResult",
    "CheckState",
    "DuelResult",
    "DuelState",
    "FairLock",
    "PageState",
    "address_table",
    "audit_command",
    "audit_result",
    "check_aftermath",
    "check_archetype",
    "check_axes",
    "check_competence",
    "check_distance_m",
    "check_figure",
    "check_gear",
    "check_method",
    "check_result",
    "check_systems",
    "check_target",
    "check_variant_fields",
    "check_variants",
    "combat_systems",
    "combat_variant_fields",
    "default_check",
    "default_duel",
    "default_state",
    "duel_command",
    "duel_figure",
    "duel_result",
    "duel_sentence",
    "duel_variant_map",
    "duel_variants",
    "gear_options",
    "load_upload",
    "pairs_text",
    "parse_query",
    "png_bytes",
    "to_query",
    "url_param",
    "variant_fields",
    "variant_text",
    "warm",
]
__all__ += [
    "DEFAULT_DISTANCES",
    "DEFAULT_GROUP_TRIALS",
    "GROUP_FIGURES",
    "GROUP_KEYS",
    "SCENARIO_DIR",
    "SENSITIVITY_SOURCES",
    "DistanceResult",
    "GroupResult",
    "GroupState",
    "SensitivityRun",
    "SensitivityState",
    "check_distances",
    "distance_command",
    "distance_figure",
    "distance_result",
    "distances_text",
    "group_command",
    "group_result",
    "load_matchup",
    "load_matchup_upload",
    "sensitivity_command",
    "sensitivity_run",
    "shipped_scenarios",
    "side_spec",
]
# the page's edits of the rules and traits (:mod:`.edits`)
__all__ += [
    "EDIT_SEP",
    "check_edits",
    "check_traits",
    "edit_args",
    "edit_list",
    "edit_text",
    "load_rules_upload",
    "own_traits",
    "page_rules",
    "read_edits",
    "rule_fields",
    "rules_file",
    "value_text",
    "with_edit",
]
# A/B (:mod:`.compare`, the ``pin`` key of the address)
__all__ += [
    "DUEL_FIGURES",
    "ONE_HIT_FIGURES",
    "UNPINNED",
    "audit_flips",
    "check_table",
    "duel_table",
    "pin_text",
    "se_difference",
    "se_note",
    "shared_rolls",
]


def warm() -> None:
    """Each system's default check and exact duel once (kernels loaded from numba's
    cache, libraries read), so a server's first page does not pay for them."""
    for system in check_systems():
        check_result(default_check(system), figure=False)
    for system in combat_systems():
        with contextlib.suppress(InputError):
            duel_result(default_duel(system), figure=False)
