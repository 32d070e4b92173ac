"""Damaged files of every format fail with a StrataError naming the file, never a library exception."""

from __future__ import annotations

import random

import kbfiles
import pytest

from app.core.errors import StrataError
from knowledge_base.parsing import parse_document

_SAMPLES = {
    "a.pdf": lambda: kbfiles.pdf_bytes(["alpha beta gamma"] * 2),
    "a.docx": lambda: kbfiles.docx_bytes([("h1", "T"), ("p", "alpha beta")], table=[["a", "b"]]),
    "a.pptx": lambda: kbfiles.pptx_bytes([("T", ["alpha"], "notes")]),
    "a.xlsx": lambda: kbfiles.xlsx_bytes({"S": [["h", "i"], [1, 2]]}),
    "a.pages": lambda: kbfiles.iwork_bytes(kbfiles.pdf_bytes(["alpha"])),
}


@pytest.mark.parametrize("name", sorted(_SAMPLES))
def test_mutated_files_fail_cleanly(name):
    original = _SAMPLES[name]()
    rng = random.Random(name)
    for _ in range(30):
        data = bytearray(original)
        mode = rng.choice(["flip", "truncate", "zero"])
        if mode == "truncate":
            data = data[: rng.randrange(1, len(data))]
        else:
            start = rng.randrange(0, len(data))
            for i in range(start, min(len(data), start + rng.randrange(1, 64))):
                data[i] = 0 if mode == "zero" else data[i] ^ 0xFF
        try:
            parse_document(bytes(data), name)
        except StrataError as exc:
            assert str(exc).startswith(f"{name}: "), str(exc)
