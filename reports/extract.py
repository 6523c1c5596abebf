"""Babel extractors for the words the report shows that are defined outside ``reports/``.

``babel.cfg`` maps them (``[extractors]``), so ``pybabel extract -F babel.cfg`` and
``tests/test_report_i18n.py`` collect the same msgids:

- :func:`variant_docs` — the ``doc=`` text of every ``variant(...)`` field in
  ``engines/`` (the descriptions in the *Assumptions* table), its ``term=`` and the
  values of its ``words=`` (the rule and its values as the Key findings name them), and
  the strings the systems' report hooks mark with ``N_``. They are written where the
  rule gap is settled; the report translates them where it shows them.
- :func:`toml_text` — the designer's sentences of the data files (``reason`` and
  ``name`` of a guardrail, ``title`` of a fight) in ``analysis/data/``.

Sentences that ``analysis`` builds from numbers are marked with ``analysis.text.N_`` and
extracted by Babel's own Python extractor.
"""

from __future__ import annotations

import ast
import tomllib

__all__ = ["NAMED_TABLES", "TOML_KEYS", "toml_text", "variant_docs"]

#: keys of the data files whose string values are sentences shown to people
TOML_KEYS = ("reason", "title")
#: ``name`` of a guardrail is shown to people too (the report's Key findings); the names
#: of fights and checks are identifiers (snake_case) and stay
NAMED_TABLES = ("guardrails",)


def _called(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def variant_docs(fileobj, keywords, comment_tags, options):
    """``(lineno, funcname, message, comments)`` for each constant ``doc=`` and ``term=``
    of a ``variant(...)`` call and each constant value of its ``words=`` mapping
    (implicitly joined string literals are one message), then the strings an engine
    module marks itself (``N_`` / ``_`` in a system's report hooks), found by Babel's own
    Python extractor."""
    import io

    from babel.messages.extract import extract_python

    source = fileobj.read()
    yield from extract_python(io.BytesIO(source), keywords, comment_tags, options)
    tree = ast.parse(source.decode(options.get("encoding", "utf-8")))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called(node.func) == "variant":
            for kw in node.keywords:
                values = (
                    kw.value.values
                    if kw.arg == "words" and isinstance(kw.value, ast.Dict)
                    else [kw.value]
                    if kw.arg in ("doc", "term")
                    else []
                )
                for value in values:
                    if (
                        isinstance(value, ast.Constant)
                        and isinstance(value.value, str)
                        and value.value
                    ):
                        yield value.lineno, "", value.value, []


def _strings(data, path=()):
    if isinstance(data, dict):
        for key, value in data.items():
            shown = key in TOML_KEYS or (key == "name" and path[:1] and path[0] in NAMED_TABLES)
            if isinstance(value, str) and shown and value.strip():
                yield (*path, key), value
            elif isinstance(value, dict | list):
                yield from _strings(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _strings(value, (*path, i))


def toml_text(fileobj, keywords, comment_tags, options):
    """The ``reason`` / ``title`` strings of a TOML data file (line numbers are not kept
    by the TOML reader: the position in the file is given as a comment)."""
    data = tomllib.loads(fileobj.read().decode(options.get("encoding", "utf-8")))
    for where, value in _strings(data):
        yield 0, "", value, [".".join(map(str, where))]
