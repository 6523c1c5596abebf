"""Sphinx configuration of the rpg-balance documentation (``python3 tasks.py docs``).

Generated pages (API, file formats, variants, address keys, the tutorials' notebooks) are
written into ``_generated/`` at every build by ``_ext/rpg_generated.py``.

Notebooks: myst-nb executes them with jupyter-cache (``nb_execution_mode = "cache"``): the
first build runs each notebook once, later builds reuse its outputs until the notebook
changes. ``RPG_DOCS_EXECUTE=off`` renders them without running them (the test suite's
build: tests/test_notebooks.py already executes every notebook).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE / "_ext"))
# the notebooks' kernels import the project from this checkout
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
)

project = "rpg-balance"
author = "rpg-balance contributors"
copyright = "rpg-balance contributors"

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinxarg.ext",
    "rpg_generated",
]

source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "seeds", "**.ipynb_checkpoints", "jupyter_execute"]
root_doc = "index"

html_theme = "furo"
html_title = "rpg-balance"
html_static_path: list[str] = []

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 4

nb_execution_mode = os.environ.get("RPG_DOCS_EXECUTE", "cache")
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_execution_cache_path = str(ROOT / "build" / "docs-jupyter-cache")

autodoc_default_options = {"members": True}
autodoc_typehints = "none"
autodoc_member_order = "bysource"
autodoc_mock_imports: list[str] = []

# The digests' headings go from a section straight to a sub-sub-section in places.
suppress_warnings = ["myst.header"]
