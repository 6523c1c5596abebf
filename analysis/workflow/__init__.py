"""The designer's workflow: TOML studies (``scenario``) run by ``run``, check and fight
sweeps (``sweep``, ``fight_sweep``) and the solvers (``solvers``). May import
``analysis.checks`` and ``analysis.combat``."""
