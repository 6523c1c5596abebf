"""The built-in resolution systems, one package each, laid out as a plug-in is.

``engines.systems.<id>`` holds ``checks`` (the single-check rules: ``Variants``, ``exact``,
``monte_carlo`` and the system's ``PLUGIN``), ``combat`` (the combat engine) and
``campaign`` (the campaign mechanics). :func:`engines.system.registry` lists them
(:data:`engines.system.BUILT_IN`, in the order every table shows them) before the
plug-ins of the entry-point group ``rpg_balance.systems``.
"""
