"""``rpg-balance serve``: the live workbench, a local web page where a designer turns a
knob and sees the odds change.

- :mod:`reports.workbench.model` — the page's state (what is on screen, as the address
  bar's query), its validation (the command line's own) and the numbers of each tab:
  success curves and the difficulty for a target chance, a duel exact or by Monte Carlo,
  the audit of a guardrail file; no web framework, so the tests compare it with the
  command line directly;
- :mod:`reports.workbench.app` — the Panel page over the model and :func:`serve`; each
  tab's widgets and callbacks in a mixin (:mod:`.tab_checks`, :mod:`.tab_duel`,
  :mod:`.tab_audit`), what they share in :mod:`.common`.
"""
