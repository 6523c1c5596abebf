"""Combat: the archetype libraries (``archetypes`` over the per-system loaders
``combatants*``), fight metrics (``fights``), duel and group tables (``lethality``) and
the same fights across systems (``cross_combat``). May import ``analysis.checks``."""
