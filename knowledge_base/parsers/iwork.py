"""Apple Pages / Numbers / Keynote: read the preview PDF the app embeds in the package, if there is one."""

from __future__ import annotations

import io
import zipfile

from app.core.errors import UnsupportedFormat
from knowledge_base.document import DocumentFormat, SectionStream
from knowledge_base.parsers import pdf
from knowledge_base.parsers.base import corrupt

_APP = {DocumentFormat.PAGES: "Pages", DocumentFormat.NUMBERS: "Numbers", DocumentFormat.KEYNOTE: "Keynote"}


def stream(data: bytes, filename: str, fmt: DocumentFormat) -> SectionStream:
    """The native .iwa format is an undocumented protobuf stream; the preview PDF is the readable copy."""
    app = _APP[fmt]
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            name = preview_pdf_name(archive.namelist())
            preview = archive.read(name) if name else None
    except Exception as exc:  # zipfile lets zlib.error, EOFError, CRC errors through; convert at the seam
        raise corrupt(filename, f"{app} package", exc) from exc
    if preview is None:
        raise UnsupportedFormat(
            f"{filename}: this {app} file has no embedded PDF preview, and the native {app} format "
            "cannot be read",
            hint=f"in {app} choose File › Export To › PDF… and add the PDF instead",
        )
    out = pdf.stream(preview, filename, fmt)
    out.metadata["extractedFrom"] = "embedded preview PDF"
    return out


def preview_pdf_name(names: list[str]) -> str | None:
    """`QuickLook/Preview.pdf` (iWork '09 to '13 and many later exports), or any PDF in QuickLook/."""
    best: str | None = None
    for name in names:
        lower = name.lower()
        if lower in ("quicklook/preview.pdf", "preview.pdf"):
            return name
        if lower.startswith("quicklook/") and lower.endswith(".pdf"):
            best = best or name
    return best
