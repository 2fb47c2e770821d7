"""The documentation site (Sphinx, MyST Markdown, autodoc): ``make docs`` builds it into ``docs/_build/html``.

The build is strict: ``-W -n`` turns every warning into an error, and nitpicky mode warns on any reference that does
not resolve, in the pages (a link to a missing page or heading) and in the docstrings (``:class:`X``` for an X that
is not documented). The pages are Markdown, so README.md (the first page, included) and the guides read the same on
GitHub and on the site, and tests/test_docs.py runs their code blocks.

The API reference documents the public names as ``import streaming_json`` gives them, with the pure-Python backend
forced (``STREAMING_JSON_PURE_PYTHON=1``, set here before the import, however the build is run): the classes then
come from the pure twin, whose signatures ``inspect`` can read (the compiled core's are C-typed text in its
docstrings); tests/test_docs.py holds the two twins to the same docstrings.
"""

from __future__ import annotations

import os

os.environ["STREAMING_JSON_PURE_PYTHON"] = "1"

import streaming_json  # after the variable: the backend is picked at import

project = "streaming_json"
author = "streaming_json developers"
copyright = "streaming_json developers"
release = version = streaming_json.__version__

extensions = ["myst_parser", "sphinx.ext.autodoc"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]

# Links to headings: GitHub's anchors (`page.md#a-heading`), so that a link works on GitHub and on the site alike.
myst_heading_anchors = 3

nitpicky = True
# The standard library's and pydantic's own names in signatures: without their inventories (the build reads nothing
# from the network) they cannot resolve, and they are not this library's to document.
nitpick_ignore_regex = [
    ("py:class", r"(collections\.abc|typing|types|enum|re|pathlib)\.\w+"),
    ("py:obj", r"typing\.Callable\[.*"),  # a Callable's argument list, as autodoc renders it
    ("py:class", r"pydantic(\.\w+)*\.\w+"),
    ("py:class", r"RootModelRootType"),
    ("py:class", r"streaming_json\.[\w.]*\.T"),  # a generic's type variable
]

autodoc_member_order = "bysource"
autodoc_typehints_format = "short"

html_theme = "furo"
html_title = f"streaming_json {release}"

# Code blocks wrap rather than scroll sideways (docs/_static/code-blocks.css).
html_static_path = ["_static"]
html_css_files = ["code-blocks.css"]
