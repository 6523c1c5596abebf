"""The documentation cannot drift: the site builds with warnings as errors, its generated
reference covers the code, every runnable example prints what its page shows, and every
fact the README states is checked here.

The site is built once per module with ``sphinx-build -W --keep-going`` into a temporary
folder (about a minute on two cores: the tests that read it are marked ``slow``),
notebooks not executed (``RPG_DOCS_EXECUTE=off``: tests/test_notebooks.py runs every
notebook). A runnable example is a console block marked

    ```{code-block} console
    :class: runnable

    $ rpg-balance COMMAND ...
    the output, exactly
    ```

in a page under docs/, and every ``console`` block of the README: each ``$ rpg-balance``
command (a line ending in ``\\`` continues it) runs in this process through
:func:`cli.main.main`, and its output (stdout, then stderr) must equal the lines that
follow, up to a line ``...`` (the page shows the first lines only; a line ending in
``...`` shows the beginning of the line). ``$ echo $?`` checks the exit code of the
command before it.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from cli.main import build_parser, main

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
FENCE = re.compile(r"^```(\{code-block\} console|console)\n(.*?)^```", re.S | re.M)


# --------------------------------------------------------------------- the examples


def runnable_blocks(path: Path) -> list[str]:
    """The runnable console blocks of a page (the README: every console block)."""
    out = []
    for kind, body in FENCE.findall(path.read_text(encoding="utf-8")):
        if kind == "console" and path != README:
            continue
        if kind.startswith("{"):
            options, _, body = body.partition("\n\n")
            if ":class: runnable" not in options:
                continue
        out.append(body)
    return out


def steps(block: str) -> list[tuple[str, list[str]]]:
    """``(command, expected output lines)`` for each ``$`` line of a block."""
    out: list[tuple[str, list[str]]] = []
    lines = block.rstrip("\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        assert line.startswith("$ "), f"expected a $ command, got {line!r}"
        command = line[2:]
        while command.endswith("\\"):
            i += 1
            command = command[:-1] + " " + lines[i].strip()
        i += 1
        expected = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i])
            i += 1
        while expected and not expected[-1].strip():
            expected.pop()
        out.append((command, expected))
    return out


def _examples() -> list:
    pages = [README, *sorted(DOCS.rglob("*.md"))]
    found = []
    for page in pages:
        if "_generated" in page.parts or "_build" in page.parts:
            continue
        for n, block in enumerate(runnable_blocks(page)):
            found.append(pytest.param(block, id=f"{page.relative_to(ROOT)}#{n}"))
    return found


def _line_matches(got: str, want: str) -> bool:
    """A line the page ends with ``...`` shows the beginning of the printed line."""
    if want.endswith((", ...", " ...")):
        return got.startswith(want[:-3])
    return got == want


def _matches(got: list[str], expected: list[str]) -> bool:
    if "..." in expected:  # the page shows the first lines only
        expected = expected[: expected.index("...")]
        got = got[: len(expected)]
    return len(got) == len(expected) and all(map(_line_matches, got, expected))


@pytest.mark.parametrize("block", _examples())
def test_runnable_example_prints_what_the_page_shows(block, capsys):
    code = None
    for command, expected in steps(block):
        argv = shlex.split(command)
        if argv == ["echo", "$?"]:
            assert expected == [str(code)]
            continue
        assert argv[0] == "rpg-balance", f"a runnable example runs rpg-balance: {command}"
        code = main(argv[1:])
        cap = capsys.readouterr()
        got = [x.rstrip() for x in (cap.out + cap.err).rstrip("\n").split("\n")]
        want = [x.rstrip() for x in expected]
        assert _matches(got, want), (
            f"$ {command}\n--- the page shows:\n"
            + "\n".join(want)
            + "\n--- the command prints:\n"
            + "\n".join(got)
        )
        if not any(x.startswith("error:") for x in want):
            assert code == 0, command


def test_the_docs_have_runnable_examples():
    pages = {p.name for p in DOCS.rglob("*.md") if runnable_blocks(p)}
    assert {"checks.md", "combat.md", "campaign.md"} <= pages
    assert len(runnable_blocks(README)) == 3


def shown_commands() -> list[tuple[str, str]]:
    """``(page, command)`` for every ``rpg-balance`` command a ``sh`` or ``console`` block of
    the README, CONTRIBUTING.md or a docs page shows (run or not; a ``\\`` continues the
    line; what follows a pipe, a redirection, ``&&``, ``;`` or a ``#`` comment is not the
    command's)."""
    pages = [README, ROOT / "CONTRIBUTING.md", *sorted(DOCS.rglob("*.md"))]
    out = []
    for page in pages:
        if "_generated" in page.parts or "_build" in page.parts:
            continue
        text = page.read_text(encoding="utf-8")
        for body in re.findall(
            r"^```(?:sh|console|\{code-block\} console)\n(.*?)^```", text, re.S | re.M
        ):
            lines = body.split("\n")
            i = 0
            while i < len(lines):
                line = lines[i].strip().removeprefix("$ ")
                while line.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    line = line[:-1] + " " + lines[i].strip()
                i += 1
                if line.startswith("rpg-balance ") and "…" not in line:
                    out.append(
                        (str(page.relative_to(ROOT)), re.split(r"\s(?:\||>|&&|;|#)", line)[0])
                    )
    return out


def test_every_command_shown_parses(plugin_installed):
    """Every command the pages show is one the parser takes (options, choices, system
    ids: the example plug-in installed for the plug-in page's)."""
    from cli.main import UsageError

    shown = shown_commands()
    assert len(shown) >= 60
    for page, command in shown:
        try:
            build_parser().parse_args(shlex.split(command)[1:])
        except UsageError as exc:
            raise AssertionError(f"{page}: {command}: {exc}") from None


# ----------------------------------------------------------------------- the site


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "RPG_DOCS_EXECUTE": "off", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-b",
            "html",
            "-q",
            "-W",
            "--keep-going",
            "-d",
            str(out / ".doctrees"),
            str(DOCS),
            str(out / "html"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-8000:]
    return out / "html"


def _page(site: Path, name: str) -> str:
    return (site / name).read_text(encoding="utf-8")


@pytest.mark.slow
def test_cli_reference_has_every_command_and_option(site):
    html = _page(site, "reference/cli.html")
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        assert f'id="rpg-balance-{name}"' in html, name
        for action in command._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            for option in action.option_strings:
                assert option in html, (name, option)


@pytest.mark.slow
def test_file_formats_come_from_the_validators(site):
    from analysis.workflow.guardrails import Tune
    from analysis.workflow.scenario import Guardrail, Scenario

    html = _page(site, "_generated/formats.html")
    for model in (Scenario, Guardrail, Tune):
        for key in model.model_fields:
            assert f'<code class="docutils literal notranslate"><span class="pre">{key}' in html, (
                model.__name__,
                key,
            )
    # a rules file: every kind each system's tables name
    from analysis.rules import table_rows
    from engines.system import registry

    for sid in registry():
        for row in table_rows(sid):
            assert f'<span class="pre">{row["table"]}</span>' in html, (sid, row)


@pytest.mark.slow
def test_variants_page_lists_every_variant_with_its_rule(site):
    import dataclasses

    from engines.system import registry

    html = _page(site, "_generated/variants.html")
    for sid, system in registry().items():
        assert sid in html
        for group in ("checks", "combat", "campaign"):
            hooks = getattr(system, group)
            cls = hooks and getattr(hooks.engine(), "Variants", None)
            for f in dataclasses.fields(cls) if cls else ():
                assert f'<span class="pre">{f.name}</span>' in html, (sid, f.name)
                assert f.metadata["rule"].split(",")[0].strip() in html, (sid, f.name)


@pytest.mark.slow
def test_address_keys_page_lists_every_key(site):
    from reports.workbench.model import state

    html = _page(site, "_generated/address.html")
    for k in state.ADDRESS:
        assert f'<span class="pre">{k.key}</span>' in html, k.key


@pytest.mark.slow
def test_api_reference_has_the_public_names(site):
    import analysis.workflow.scenario as scenario
    import engines.system as system

    for page, module in (("analysis", scenario), ("engines", system)):
        html = _page(site, f"_generated/api/{page}.html")
        for name in module.__all__:
            assert name in html, (module.__name__, name)


@pytest.mark.slow
def test_every_notebook_is_a_tutorial(site):
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        html = _page(site, f"_generated/tutorials/{nb.stem}.html")
        title = next(
            line
            for line in "".join(
                __import__("json").loads(nb.read_text())["cells"][0]["source"]
            ).split("\n")
            if line.startswith("# ")
        )[2:]
        assert title.split("`")[0].strip()[:20] in html, nb.name


@pytest.mark.slow
def test_every_page_is_in_the_site(site):
    for page in DOCS.rglob("*.md"):
        rel = page.relative_to(DOCS)
        if rel.parts[0] in {"_generated", "_build", "seeds"}:
            continue
        assert (site / rel.with_suffix(".html")).exists(), rel


# ------------------------------------------------------------------- the README


def test_readme_is_short_and_links_only_to_files_that_exist():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if "://" not in target:
            assert (ROOT / target).exists(), target


def test_readme_quick_start_is_the_ci_command():
    text = README.read_text(encoding="utf-8")
    block = text.split("## Quick start", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in block.splitlines()]
    assert commands == ["python3 tasks.py report", "python3 tasks.py test"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == "exec python3 tasks.py test"
    # the docs command and its folder
    sys.path.insert(0, str(ROOT))
    import tasks

    assert tasks.DOCS_OUT == ROOT / "docs" / "_build"
    assert "`python3 tasks.py docs` builds the documentation\nsite into `docs/_build/`" in text
    assert "open `docs/_build/index.html`" in text


def test_readme_systems_table_is_the_registry():
    from engines.system import registry

    text = README.read_text(encoding="utf-8")
    rows = re.findall(
        r"^\| `(\w+)` \| (.+?) \| \[RULES\.md §([A-E])\]\(docs/RULES\.md\) \|$", text, re.M
    )
    built_in = [(s.id, s.name) for s in registry().values() if s.source == "built-in"]
    assert [(sid, name) for sid, name, _ in rows] == built_in
    rules = (DOCS / "RULES.md").read_text(encoding="utf-8")
    for sid, _, letter in rows:
        assert re.search(rf"^## {letter}\. `{sid}`", rules, re.M), (sid, letter)
    # the plug-in example it names
    plugin = tomllib.loads((ROOT / "examples/plugin_system/pyproject.toml").read_text())
    assert "pbta_2d6" in plugin["project"]["entry-points"]["rpg_balance.systems"]


def test_readme_table_command_options():
    """ "Every table command takes --format csv|json|markdown|parquet and -o FILE;
    --variant NAME=VALUE sets a rule variant"."""
    parser = build_parser()

    def leaves(p):
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            yield p
            return
        for child in subs[0].choices.values():
            yield from leaves(child)

    tables = [p for p in leaves(parser) if any("--format" in a.option_strings for a in p._actions)]
    assert len(tables) >= 15
    for p in tables:
        fmt = next(a for a in p._actions if "--format" in a.option_strings)
        assert list(fmt.choices) == ["csv", "json", "markdown", "parquet"], p.prog
        assert any("-o" in a.option_strings for a in p._actions), p.prog
    assert sum(any("--variant" in a.option_strings for a in p._actions) for p in tables) >= 10


# -------------------------------------------------------- facts the pages state


def test_rule_id_ranges_are_the_digests():
    """explanation/variants.md names the digest's first and last ids (A1 … E18, DX1 …)."""
    rules = (DOCS / "RULES.md").read_text(encoding="utf-8")
    last_e = max(int(n) for n in re.findall(r"\bE(\d+)\b", rules))
    last_dx = max(int(n) for n in re.findall(r"\bDX(\d+)\b", rules))
    page = (DOCS / "explanation" / "variants.md").read_text(encoding="utf-8")
    assert f"(A1 … E{last_e})" in page
    assert f"DX1 … DX{last_dx}" in page
    arch = (DOCS / "ARCHITECTURE.md").read_text(encoding="utf-8")
    assert f"A1…E{last_e}" in arch


def test_architecture_points_only_inside_the_repository():
    arch = (DOCS / "ARCHITECTURE.md").read_text(encoding="utf-8")
    assert "../" not in arch
    for path in re.findall(
        r"`((?:docs|engines|analysis|reports|cli|tests|benchmarks)/"
        r"[\w/.]+\.(?:py|md|toml))`",
        arch,
    ):
        assert (ROOT / path).exists(), path


def test_bounds_named_where_they_live():
    """docs/howto/checks.md: "Counts are bounded (one place: analysis/limits.py)"."""
    from analysis import limits

    page = (DOCS / "howto" / "checks.md").read_text(encoding="utf-8")
    assert "one\nplace: `analysis/limits.py`" in page or "one place: `analysis/limits.py`" in page
    exponent = str(len(str(limits.MAX_TRIALS)) - 1).translate(
        str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
    )
    assert f"trials 1–10{exponent}" in page
    assert f"round caps 1–{limits.MAX_ROUND_CAP}" in page
    assert f"campaign sessions 0–{limits.MAX_SESSIONS}" in page
    assert f"worker processes 0–{limits.MAX_WORKERS}" in page


def test_every_worked_scenario_is_listed():
    page = (DOCS / "howto" / "scenarios.md").read_text(encoding="utf-8")
    for path in sorted((ROOT / "scenarios").glob("*.toml")):
        assert f"`{path.name}`" in page, path.name
