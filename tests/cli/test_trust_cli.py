"""The issue's bad-input and edge reproductions through the real `strata` command."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from app.cli.main import cli

runner = CliRunner()
MARKUP = "use [/a-z] and [bold] carefully [media omitted] [file: logo.png]"


def line(i: int, **kw: object) -> str:
    item = {
        "platform": "note",
        "message_id": f"n{i}",
        "channel": "c",
        "person": "p",
        "timestamp": 1_700_000_000_000 + i,
        "content": f"budget note {i}",
        **kw,
    }
    return json.dumps(item)  # ASCII escapes: a lone surrogate is written as \ud800, as real files do


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def stored() -> int:
    return int(json.loads(invoke("stats", "--json")[1])["messages"])


def test_jsonl_600_lines_with_a_surrogate_at_400_stores_all_600(tmp_path: Path, cli_env) -> None:
    rows = [line(i, content="bad \ud800 here") if i == 400 else line(i) for i in range(1, 601)]
    (tmp_path / "in.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    code, out, err = invoke("import", "jsonl", str(tmp_path / "in.jsonl"), "--json")
    assert code == 0, err
    assert (json.loads(out)["imported"], stored()) == (600, 600)
    hits = json.loads(invoke("search", "bad here", "--json")[1])["hits"]
    assert any(h["content"] == "bad \ufffd here" for h in hits)


def test_jsonl_bad_item_at_400_is_reported_by_line_and_the_rest_stored(tmp_path: Path, cli_env) -> None:
    deep = '{"a":' * 3000 + "1" + "}" * 3000
    rows = [line(i) for i in range(1, 601)]
    rows[399] = line(400)[:-1] + ', "metadata": ' + deep + "}"
    rows[449] = line(450, channel="x" * 5000)
    (tmp_path / "in.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    code, out, _ = invoke("import", "jsonl", str(tmp_path / "in.jsonl"), "--json")
    data = json.loads(out)
    assert code == 0 and data["imported"] == 598 and stored() == 598
    assert [e["line"] for e in data["errors"]] == [400, 450]
    assert "nested too deeply" in data["errors"][0]["reason"]


def test_jsonl_where_every_line_is_bad_exits_non_zero(tmp_path: Path, cli_env) -> None:
    (tmp_path / "bad.jsonl").write_text('{"platform": "x"}\n{broken\n', encoding="utf-8")
    code, _, err = invoke("import", "jsonl", str(tmp_path / "bad.jsonl"))
    assert code == 1
    assert "none of the 2 items could be imported" in err and "line 2" in err


def test_markup_in_messages_prints_as_written(tmp_path: Path, cli_env) -> None:
    (tmp_path / "in.jsonl").write_text(line(1, content=MARKUP, person="[red]mallory[/red]") + "\n")
    assert invoke("import", "jsonl", str(tmp_path / "in.jsonl"))[0] == 0
    wide = CliRunner(env={"COLUMNS": "300"}).invoke(cli, ["search", "carefully"])
    assert wide.exit_code == 0, wide.output
    assert MARKUP in wide.stderr + wide.stdout and "[red]mallory[/red]" in wide.stderr + wide.stdout


def telegram_export(path: Path, messages: list[dict]) -> Path:
    base = {"type": "message", "date": "2024-01-01T10:00:00", "from": "Anna", "from_id": "user1"}
    chat = {
        "name": "Plans [bold]",
        "type": "private_supergroup",
        "id": 42,
        "messages": [
            {**base, "id": n, "date_unixtime": str(1_704_103_200 + n), **m} for n, m in enumerate(messages, 1)
        ],
    }
    path.write_text(json.dumps(chat), encoding="utf-8")
    return path


def test_telegram_surrogates_markup_and_text_objects(tmp_path: Path, cli_env) -> None:
    texts = [{"text": f"plain message {i}"} for i in range(600)]
    texts[399] = {"text": "bad \ud800 here"}
    texts[10] = {"text": {"type": "bold", "text": "text as one entity object"}}
    texts[0] = {"text": MARKUP}
    export = telegram_export(tmp_path / "result.json", texts)
    code, out, err = invoke("import", "telegram", str(export))
    assert code == 0, err
    shown = " ".join((out + err).split())
    assert MARKUP[:40] in shown and "Plans [bold]" in shown  # preview: markup printed as text
    # `text` as an object is reported with its place and reason (was: silently "empty"), the rest stored.
    assert "message 11" in shown and "'text' is dict" in shown
    assert stored() == 599
    hits = json.loads(invoke("search", "bad here", "--json")[1])["hits"]
    assert any(h["content"] == "bad \ufffd here" for h in hits)


def test_mbox_from_quoting_is_undone(tmp_path: Path, cli_env) -> None:
    mbox = tmp_path / "box.mbox"
    mbox.write_text(
        "From a@example.org Mon Mar  6 09:00:00 2023\n"
        "Message-ID: <q1@example.org>\nDate: Mon, 06 Mar 2023 10:00:00 +0100\n"
        "From: a@example.org\nSubject: quoting\n\n"
        "first line\n>From the start, we agreed.\n>>From here on mboxrd quoting.\n",
        encoding="utf-8",
    )
    assert invoke("import", "email", str(mbox))[0] == 0
    content = json.loads(invoke("search", "agreed", "--json")[1])["hits"][0]["content"]
    assert "\nFrom the start, we agreed." in content and "\n>From here on" in content


def test_edges_give_one_sentence_and_exit_1_without_traceback(tmp_path: Path, cli_env) -> None:
    bad_settings = tmp_path / "d"
    bad_settings.mkdir()
    (bad_settings / "settings.toml").write_text("[forgetting]\ninterval_minutes = 0\n")
    corrupt = tmp_path / "c"
    corrupt.mkdir()
    (corrupt / "strata.sqlite3").write_bytes(b"garbage" * 5000)
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")
    cases = {
        str(blocker / "data"): "cannot use",
        str(bad_settings): "invalid setting forgetting.interval_minutes = 0",
        str(corrupt): "is damaged or is not a Strata database",
    }
    for data_dir, expected in cases.items():
        code, _, err = invoke("--data-dir", data_dir, "stats")
        assert code == 1 and expected in " ".join(err.split()), err
        assert "Traceback" not in err and "hint:" in err


def test_proc_forbidden_data_dir(cli_env) -> None:
    code, _, err = invoke("--data-dir", "/proc/forbidden", "stats")
    assert code == 1 and "cannot use /proc/forbidden" in err and "Traceback" not in err
