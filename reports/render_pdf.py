"""Render the report's HTML to PDF with WeasyPrint (the print CSS of the same page)."""

from __future__ import annotations

import logging

__all__ = ["render_pdf"]


def render_pdf(html: str) -> bytes:
    """PDF bytes of ``html`` (A4, page numbers, figures kept whole)."""
    from analysis.package import require

    require("pdf", "the report's PDF (--no-pdf writes the HTML only)")
    import weasyprint

    # WeasyPrint logs unsupported-CSS notes (e.g. sticky headers) at warning level.
    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    return weasyprint.HTML(string=html, base_url=None).write_pdf()
