"""What every tab's mixin of the workbench page reads from the page and from the other
tabs, declared once with its type: the base class of the mixins (:mod:`.tab_checks`,
:mod:`.tab_duel`, :mod:`.tab_audit`, :mod:`.tab_distance`, :mod:`.tab_groups`,
:mod:`.tab_sensitivity`, :mod:`.tab_rules`, :mod:`.tab_pin`), which
:class:`reports.workbench.app.Workbench` puts together.

The declarations are for the type checker only: an annotation without a value makes no
attribute and the methods are declared under ``TYPE_CHECKING``, so at run time the class
is empty and every attribute and method is the page's or a mixin's own (a mixin's
definition is checked against its declaration here)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import threading

    import pandas as pd
    import panel as pn

    from analysis.rules import RuleSet

    from . import model

__all__ = ["PageBase"]


class PageBase:
    """The page's shared attributes and methods, as the mixins use them."""

    # ------------------------------------------------------------------ the page (app.py)

    #: the state on screen (the address bar's query), with a pinned setup A
    state: model.PageState
    #: the rules the page computes under: ``serve --rules`` (``_base_rules``) with the
    #: page's edits made (:mod:`.tab_rules`), and the files of ``serve --rules``
    rules: tuple[RuleSet, ...]
    _base_rules: tuple[RuleSet, ...]
    rule_files: tuple[str, ...]
    #: the file of ``serve --guardrails`` (None: the shipped guardrails alone)
    guardrails: str | None
    #: the language menu and the page's messages
    lang: pn.widgets.Select
    messages: pn.pane.Alert
    #: one background run (Monte Carlo, audit, group fight, sensitivity) at a time; its
    #: Stop; what its thread reports (polled by the page)
    _busy: threading.Lock
    _stop: threading.Event
    _job: dict[str, Any]
    #: the uploaded guardrail file (name, bytes) and the last audit table (English)
    _upload: tuple[str, bytes] | None
    _audit: pd.DataFrame | None
    #: the figures drawn after the numbers: each tab's request number and PNG
    _figures: dict[str, tuple[int, bytes]]
    _request: dict[str, int]
    #: set while the page moves widgets itself (their callbacks then do nothing)
    _updating: bool

    # ------------------------------------------------------------------ the A/B panes (tab_pin)

    p_checks: pn.Column
    p_duel: pn.Column
    p_audit: pn.Column

    if TYPE_CHECKING:
        # -------------------------------------------------------------- the page (app.py)

        def _guard(self, fn: Callable, *args: Any) -> bool: ...

        def _say(self, messages: list[str]) -> None: ...

        def _push_url(self) -> None: ...

        def _draw_later(self, tab: str, draw: Callable[[], bytes]) -> None: ...

        def _with_rules(self, command: str) -> str: ...

        def _variant_widgets(
            self, system: str, fields: list[dict], given: dict, box: pn.Column, callback: Callable
        ) -> dict: ...

        # -------------------------------------------------------------- the other tabs

        def refresh_checks(self) -> None: ...

        def refresh_duel(self) -> None: ...

        def _on_duel(self, _event: Any = None) -> None: ...

        def _on_stop(self, _event: Any = None) -> None: ...

        def refresh_distance(self) -> None: ...

        def show_deadliness(self, row: dict) -> None: ...

        def _distance_pane(self) -> list: ...

        def show_audit(self) -> None: ...

        def _audit_command(self) -> None: ...

        def _edit_words(self) -> list[str]: ...

        def _rules_pane(self) -> pn.Card: ...

        def _rules_widgets(self) -> None: ...

        def _read_traits(self, old: model.DuelState, new: model.DuelState) -> None: ...

        def pinned_duel(
            self, mc: bool = False, on_batch: Callable[[int, int], None] | None = None
        ) -> model.DuelResult | None: ...

        def pinned_audit(self) -> pd.DataFrame | None: ...

        def _compare_checks(self, r: model.CheckResult) -> None: ...

        def _compare_duel(self, r: model.DuelResult | None) -> None: ...

        def _compare_audit(self) -> None: ...
