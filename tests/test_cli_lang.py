"""``--lang pt-BR`` on ``rpg-balance audit`` and ``rpg-balance campaign``.

Markdown (the human format) gets translated headers and words and the Brazilian number
style; the sentences built in analysis/ (an audit's cure) are Portuguese in every format;
csv keeps machine column names, words and numbers. A bad ``--lang`` is one line, exit 2.
Rule ids exercised: E1 (d20_degrees checks: d20 + modifier >= DC), D6 (percentile skill
growth).
"""

from __future__ import annotations

import csv
import io

import pytest

from cli.main import main

# E1: d20 + 6 >= 15 needs a natural 9..20: 12 of 20 faces, P = 0.6; min 0.7 fails and
# the cure DC 15 -> 13 (natural 7..20: 14 of 20 = 0.7) is tried first (test_audit.py).
GUARDRAIL = """
name = "d20 check"
[[checks]]
name = "expert_hard"
system = "d20_degrees"
axes = { modifier = [6], dc = [15], degree = [1] }
[[guardrails]]
name = "expert meets DC 15"
check = "expert_hard"
metric = "p_success"
min = 0.7
max = 0.9
reason = "an expert should usually, not always, meet a hard task: 50-80 %"
"""


@pytest.fixture
def guardrail(tmp_path):
    p = tmp_path / "g.toml"
    p.write_text(GUARDRAIL)
    return p


def _markdown(text: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a markdown table (a cell's ``\\|`` is a literal bar)."""
    import re

    rows = [
        [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        for line in text.strip().splitlines()
    ]
    return rows[0], rows[2:]


def test_audit_markdown_in_pt_br(guardrail, capsys):
    assert (
        main(["audit", str(guardrail), "--format", "markdown", "--lang", "pt-BR", "--no-progress"])
        == 1
    )
    head, rows = _markdown(capsys.readouterr().out)
    row = dict(zip(head, rows[0], strict=True))
    for word in ("limite de balanceamento", "situação", "sugestão"):
        assert word in head
    # every header in Portuguese words (the machine names are the csv's)
    for english in (
        "status",
        "suggestion",
        "cure",
        "reproduce",
        "searched",
        "reason",
        "value",
        "metric",
        "method",
    ):
        assert english not in head, english
    assert {"ajuste", "reproduzir", "faixas buscadas"} <= set(head)
    assert row["valor"] == "0,6"  # 12/20, decimal comma
    assert row["mín."] == "0,7"
    assert row["máx."] == "0,9"
    assert row["situação"] == "falha"
    # the DC is held (the question); modifier 6 -> 8 gives 14/20
    assert row["sugestão"] == (
        "o modificador (E1) de 6 para 8, o que leva a chance de superar a "
        "tarefa a 70%, nenhum outro limite se move"
    )
    assert row["motivo"] == (
        "um especialista deveria superar uma tarefa difícil em geral, não sempre: 50 a 80%"
    )  # guardrail reason, translated
    assert row["limite de balanceamento"] == "expert meets DC 15"  # names stay


def test_audit_csv_keeps_machine_names(guardrail, capsys):
    assert main(["audit", str(guardrail), "--no-progress"]) == 1
    en = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert main(["audit", str(guardrail), "--lang", "pt-BR", "--no-progress"]) == 1
    pt = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert list(pt[0]) == list(en[0])  # machine headers
    assert en[0]["suggestion"] == (
        "the modifier (E1) from 6 to 8, which makes the chance to "
        "succeed 70%, no other guardrail moves"
    )
    assert pt[0]["suggestion"] == (
        "o modificador (E1) de 6 para 8, o que leva a chance de "
        "superar a tarefa a 70%, nenhum outro limite se move"
    )
    for key in en[0]:
        if key not in ("suggestion", "reason"):
            assert pt[0][key] == en[0][key], key  # status, numbers: machine


def test_campaign_markdown_in_pt_br(capsys):
    # D6: skill 40, one use a session; session 0 is the start, skill 40 for everyone
    args = [
        "campaign",
        "percentile",
        "skill-growth",
        "--skill",
        "40",
        "--uses",
        "1",
        "--sessions",
        "3",
        "--format",
        "markdown",
    ]
    assert main(args) == 0
    en_head, en_rows = _markdown(capsys.readouterr().out)
    assert main([*args, "--lang", "pt-BR"]) == 0
    head, rows = _markdown(capsys.readouterr().out)
    assert head[:4] == ["sistema", "mecânica", "sessão", "média"]
    assert "method" not in head
    assert "método" in head
    assert rows[0][3] == "40"
    assert len(rows) == len(en_rows) == 4
    for en, pt in zip(en_rows, rows, strict=True):
        en = dict(zip(en_head, en, strict=True))
        pt = dict(zip(head, pt, strict=True))
        # the same numbers, decimal comma instead of point
        assert pt["média"] == en["mean"].replace(".", ",")
        assert pt["DP"] == en["sd"].replace(".", ",")
        assert pt["método"] == "exato"
    assert any("," in r[3] for r in rows[1:])  # a mean with decimals


def test_campaign_passage_row_and_csv(capsys):
    args = [
        "campaign",
        "percentile",
        "skill-growth",
        "--skill",
        "40",
        "--sessions",
        "2",
        "--table",
        "passage",
        "--threshold",
        "45",
    ]
    assert main([*args, "--format", "markdown", "--lang", "pt-BR"]) == 0
    _head, rows = _markdown(capsys.readouterr().out)
    assert rows[-1][2] == "não até 2"
    assert main(args) == 0
    en = capsys.readouterr().out
    assert main([*args, "--lang", "pt-BR"]) == 0
    assert capsys.readouterr().out == en  # csv: machine-readable, same


@pytest.mark.parametrize(
    "args",
    [
        ["audit", "--lang", "fr"],
        ["campaign", "percentile", "skill-growth", "--lang", "pt"],
    ],
)
def test_bad_lang_is_one_line_exit_2(args, tmp_path, capsys):
    out = tmp_path / "t.csv"
    assert main([*args, "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "--lang" in err[0]
    assert "pt-BR" in err[0]
    assert not out.exists()
