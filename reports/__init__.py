"""Documents from analysis tables: report structure, sections, HTML and PDF renderers.

Layers (one way): :mod:`analysis` frames → :mod:`reports.sections` (plain-language
sections of :mod:`reports.structure` objects) → :mod:`reports.render_html` (Jinja2) →
:mod:`reports.render_pdf` (WeasyPrint, same HTML with print CSS). One frozen
:class:`reports.settings.ReportSettings` is passed down; there is no global state.
"""
