"""The ``rpg-balance`` command line: the top layer. It imports ``analysis`` and
``reports``; nothing in the project imports it (``tests/test_architecture.py``).

``main`` builds the parser from the subcommand modules (``checks``, ``tables``,
``report``, ``workflow``, ``combat``; each has ``register(subparsers)``) and ``common``
holds their shared argument types and output options.
"""
