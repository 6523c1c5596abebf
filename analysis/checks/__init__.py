"""Single checks: success curves and outcome summaries (``curves``), opposed rolls
(``opposed``), the modifiers catalogue (``modifiers``), the C7 claim (``claims``), the
common competence/difficulty ladders (``ladders``) and their plots (``plots``)."""
