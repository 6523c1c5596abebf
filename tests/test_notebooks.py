"""Notebooks: committed without outputs, and every one executes top to bottom.

Each notebook has one cell tagged ``parameters``; the tests replace it with small trial
counts so the whole notebook runs in seconds with the ``python3`` kernel of this
environment (ipykernel; jupyter_client starts it with this interpreter).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"

#: Small parameters per notebook (the cell tagged "parameters" is replaced by these).
SMALL = {
    "checks.ipynb": 'SYSTEMS = ["dice_pool_7", "percentile"]\nTRIALS = 2_000\nSEED = 5',
    "cross_system.ipynb": 'SYSTEMS = ["dice_pool_6", "d20_degrees"]\nTRIALS = 2_000\nSEED = 5',
    "combat_sandbox.ipynb": "TRIALS = 200\nSEED = 5\nROUND_CAP = 20",
    "campaign.ipynb": 'SYSTEM, MECHANIC = "dice_pool_7", "morality"\n'
    'PARAMS = {"morality": 7, "infraction": 5}\nSESSIONS = 12\nTHRESHOLD = 4',
    "audit.ipynb": 'SYSTEMS = ["middle_3d10"]\nSEED = 5\nMAX_TRIALS = 20_000\nSUGGEST = True\n'
    'KNOB_SYSTEM, KNOB, VALUE = "middle_3d10", "both.vigor", 8',
    "tune.ipynb": 'FILE = "scenarios/tune.toml"\n'
    'KNOBS = ["even_duel_middle_3d10:both.vigor", "expert_hard_dice_pool_6:pool",\n'
    '         "expert_hard_percentile:dice"]\n'
    'METHOD = "search"\nBUDGET = 48\nSEED = 3',
    "sensitivity.ipynb": 'SYSTEMS = ["middle_3d10"]\nMETHOD = "auto"\nSAMPLES = 16\nSEED = 1',
}


def committed_notebooks() -> list[Path]:
    """Notebooks tracked by git (every ``*.ipynb`` when this is not a git checkout)."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "*.ipynb"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.split()
    except (OSError, subprocess.SubprocessError):
        out = []
    found = [ROOT / p for p in out] or sorted(ROOT.rglob("*.ipynb"))
    return [p for p in found if ".ipynb_checkpoints" not in p.parts]


def test_every_notebook_is_known():
    names = {p.name for p in sorted(NOTEBOOKS.glob("*.ipynb"))}
    assert names == set(SMALL)


@pytest.mark.parametrize("path", committed_notebooks(), ids=lambda p: p.name)
def test_committed_notebook_has_no_outputs(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"{path.name} cell {i} has outputs"
            assert cell.get("execution_count") is None, f"{path.name} cell {i} was run"
    assert "widgets" not in nb.get("metadata", {}), "saved widget state"
    assert nb["metadata"]["kernelspec"]["name"] == "python3"


@pytest.mark.parametrize("path", committed_notebooks(), ids=lambda p: p.name)
def test_notebook_has_one_parameters_cell(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    tagged = [c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1


@pytest.mark.notebook
def test_python3_kernel_resolves_to_this_environment():
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    spec = KernelSpecManager().get_kernel_spec("python3")
    assert spec.language == "python"
    km = KernelManager(kernel_name="python3")
    cmd = km.format_kernel_cmd()
    assert Path(cmd[0]).resolve() == Path(sys.executable).resolve()


#: seconds one cell may take (the small parameters run every cell in well under 30 s with
#: compiled kernels); a kernel that stops answering (now and then one never sends the
#: reply to an execute request, with tests running one notebook at a time too) is
#: started afresh once, so a stall costs this long, not the whole run
CELL_TIMEOUT = 120


def _execute(name: str, monkeypatch):
    import nbclient
    import nbformat
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    for cell in nb.cells:
        if "parameters" in cell.metadata.get("tags", []):
            cell.source = SMALL[name]
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    )
    monkeypatch.setenv("MPLBACKEND", "Agg")
    # the kernel is not measured: coverage's subprocess patch would start it in the kernel
    for var in ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START"):
        monkeypatch.delenv(var, raising=False)
    for attempt in (1, 2):
        client = nbclient.NotebookClient(
            nbformat.from_dict(nb),
            kernel_name="python3",
            timeout=CELL_TIMEOUT,
            startup_timeout=120,
            resources={"metadata": {"path": str(ROOT)}},
        )
        try:
            return client.execute()
        except (CellTimeoutError, DeadKernelError, TimeoutError, RuntimeError):
            # a kernel that never answers (a lost message between client and kernel):
            # once more with a new kernel; a second failure is the test's failure
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _outputs(nb, kind: str) -> list:
    found = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                raise AssertionError(f"error output: {out.get('ename')}: {out.get('evalue')}")
            data = out.get("data", {})
            if kind in data:
                found.append(data[kind])
    return found


@pytest.mark.notebook
def test_checks_notebook_runs(monkeypatch):
    nb = _execute("checks.ipynb", monkeypatch)
    pngs = _outputs(nb, "image/png")
    assert len(pngs) >= 2 + 1  # one curve figure per system, the agreement histogram, ...
    html = "\n".join(_outputs(nb, "text/html"))
    assert "p_exact" in html
    assert "delta_pp" in html


@pytest.mark.notebook
def test_cross_system_notebook_runs(monkeypatch):
    nb = _execute("cross_system.ipynb", monkeypatch)
    text = "\n".join("".join(x) for x in _outputs(nb, "text/markdown"))
    assert "Across systems: steps on native axes" in text
    assert len(_outputs(nb, "image/png")) >= 1


@pytest.mark.notebook
def test_combat_sandbox_notebook_runs(monkeypatch):
    """The sandbox's Run callback is invoked by the notebook itself: its duel table (exact
    and MC rows), survival plot and the report's cross-system combat section appear."""
    nb = _execute("combat_sandbox.ipynb", monkeypatch)
    html = "\n".join(_outputs(nb, "text/html"))
    text = "\n".join("".join(x) for x in _outputs(nb, "text/markdown"))
    for column in ("p_side0", "se_side0", "p_loser_dead", "p_incapacitate", "z_side0"):
        assert column in html
    assert ">exact<" in html  # method "both": an exact row ...
    assert ">mc<" in html  # ... and a Monte Carlo row with its SE and z-score
    assert "Combat variants in force" in text
    assert "Combat: the same duels in every system" in text
    assert len(_outputs(nb, "image/png")) >= 2  # the sandbox's plot and the section's


@pytest.mark.slow
def test_sandbox_result_uses_the_archetype_library():
    """C13/E12: the sandbox's overrides reach the engine (heavy armour helps side A in
    an even d20_degrees duel; the mirror duel without overrides is exactly 50/50)."""
    from reports.notebook import sandbox_result

    even = sandbox_result("d20_degrees", "competent", "competent", method="exact", round_cap=20)
    assert even["duel"]["p_side0"].iloc[0] == pytest.approx(even["duel"]["p_side1"].iloc[0])
    armoured = sandbox_result(
        "d20_degrees", "competent", "competent", armour_a="heavy", method="exact", round_cap=20
    )
    assert armoured["duel"]["p_side0"].iloc[0] > even["duel"]["p_side0"].iloc[0]
    assert set(armoured["armour"]["armour"]) == {"none", "light", "medium", "heavy"}


@pytest.mark.notebook
def test_campaign_notebook_runs(monkeypatch):
    """The campaign notebook draws the chosen mechanic's fan chart (A17 Morality here),
    builds its widgets, and shows the report's campaign section."""
    nb = _execute("campaign.ipynb", monkeypatch)
    text = "\n".join("".join(x) for x in _outputs(nb, "text/markdown"))
    assert "dice_pool_7 morality" in text
    assert "Campaign mechanics over sessions" in text
    assert len(_outputs(nb, "image/png")) >= 2  # the chosen fan chart and the section's
    assert "mean" in "\n".join(_outputs(nb, "text/html"))


@pytest.mark.notebook
def test_audit_notebook_runs(monkeypatch):
    """The audit notebook shows the guardrail table (with the cure of the failing even
    duel) and its Re-run callback reports the flip: B9, vigor 4 → 8 on both sides makes
    the even middle_3d10 duel long enough to pass."""
    nb = _execute("audit.ipynb", monkeypatch)
    html = "\n".join(_outputs(nb, "text/html"))
    text = "\n".join("".join(x) for x in _outputs(nb, "text/markdown"))
    assert "even duel length (middle_3d10)" in html
    assert "Vigor (B9) from 4 to 8" in html  # the cure column of the failing guardrail
    assert "d20_degrees" not in html  # restricted to one system
    # Vigor 8 cures the even duel's length and one pistol hit dropping a fighter (its own
    # middle_3d10 guardrail, which counts incapacitation)
    assert "2 guardrail(s) change status" in text
    assert "fail → pass" in html


@pytest.mark.notebook
def test_tune_notebook_runs(monkeypatch):
    """The tune notebook keeps three knobs of scenarios/tune.toml, searches them (NSGA-II,
    a small budget) and shows the reading, the front with its reproduce commands and the
    front's figure."""
    nb = _execute("tune.ipynb", monkeypatch)
    streams = "\n".join(
        out.get("text", "")
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if out.get("output_type") == "stream"
    )
    assert "candidates over 3 knobs" in streams
    html = "\n".join(_outputs(nb, "text/html"))
    assert "rpg-balance audit" in html
    assert "feasible" in html
    assert len(_outputs(nb, "image/png")) >= 1


@pytest.mark.notebook
def test_sensitivity_notebook_runs(monkeypatch):
    """The middle_3d10 guardrails against the default knobs: the even duel's length is
    all Vigor (B9), and the exact and sampled tables are shown side by side."""
    nb = _execute("sensitivity.ipynb", monkeypatch)
    text = "\n".join(
        "".join(o.get("text", ""))
        for c in nb.cells
        for o in c.get("outputs", [])
        if o.get("output_type") == "stream"
    )
    assert (
        "even duel length (middle_3d10): the duel's mean length depends mostly on the "
        "offset to every fighter's Vigor (B9)" in text
    )
    assert len(_outputs(nb, "image/png")) == 1
    html = "\n".join(_outputs(nb, "text/html"))
    assert "ST exact" in html
    assert "ST sampled" in html
