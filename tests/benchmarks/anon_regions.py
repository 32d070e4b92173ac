"""A process's anonymous memory by kind of mapping, from /proc/PID/smaps (Linux, glibc).

What stays after a soak is anonymous memory; where it sits says who holds it: glibc's main heap
(`[heap]`, brk), its other arenas (heaps of up to 64 MB, each aligned to 64 MB), blocks of
`M_MMAP_THRESHOLD` and more that malloc mapped on their own (NumPy's vector copies, Arrow
buffers; given back when freed), thread stacks, and copy-on-write pages of mapped files.

    python tests/benchmarks/anon_regions.py PID [--top 8]
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

ARENA_ALIGN = 64 << 20  # glibc's HEAP_MAX_SIZE on 64-bit: non-main arenas' heaps start aligned


def mappings(pid: int) -> list[dict[str, int | str]]:
    """Each mapping's start, size (KB), permissions, name, and its Rss and Anonymous fields (KB)."""
    out: list[dict[str, int | str]] = []
    current: dict[str, int | str] = {}
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        parts = line.split()
        if not parts:
            continue
        if not parts[0].endswith(":") and "-" in parts[0]:
            low, high = (int(x, 16) for x in parts[0].split("-"))
            name = parts[5] if len(parts) > 5 else ""
            current = {"start": low, "size": (high - low) >> 10, "perm": parts[1], "name": name}
            out.append(current)
        elif parts[0] in ("Rss:", "Anonymous:"):
            current[parts[0][:-1]] = int(parts[1])
    return out


def kind(mapping: dict[str, int | str]) -> str:
    name, size, start = str(mapping["name"]), int(mapping["size"]), int(mapping["start"])
    if name == "[heap]":
        return "main heap (brk)"
    if name.startswith("["):
        return name
    if name:
        return "copy-on-write file pages"
    if start % ARENA_ALIGN == 0 and size <= ARENA_ALIGN >> 10:
        return "other malloc arenas"
    if size >= 4096:
        return "mappings of 4 MB and more"
    return "mappings under 4 MB (stacks, small pools)"


def summary(pid: int, top: int = 0) -> str:
    """Anonymous MB per kind, largest first; with `top`, the largest mappings too."""
    kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    found = [m for m in mappings(pid) if int(m.get("Anonymous", 0))]
    for m in found:
        kinds[kind(m)][0] += int(m["Anonymous"])
        kinds[kind(m)][1] += 1
    total = sum(kb for kb, _ in kinds.values())
    lines = [f"anonymous {total / 1024:.0f} MB:"]
    for name, (kb, count) in sorted(kinds.items(), key=lambda item: -item[1][0]):
        lines.append(f"  {name:44s} {kb / 1024:7.1f} MB in {count} mappings")
    for m in sorted(found, key=lambda m: -int(m["Anonymous"]))[:top]:
        lines.append(
            f"    {int(m['start']):#x}: {int(m['size']) / 1024:7.1f} MB mapped, "
            f"{int(m['Anonymous']) / 1024:7.1f} MB anonymous {m['perm']} {m['name']}"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("pid", type=int)
    parser.add_argument("--top", type=int, default=8)
    args = parser.parse_args()
    print(summary(args.pid, args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
