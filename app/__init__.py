"""Strata: local-first personal memory."""

from app.core.memory_trim import fix_mmap_threshold, limit_arenas, prefer_system_arrow_pool

# glibc gives each thread that allocates its own malloc arena (up to 8 per core) and freed memory
# stays in each: after eight concurrent searches and an idle release at 100k messages, 248-312 MB
# of anonymous memory stayed with the default, 184-190 MB with two arenas, at the same CPU
# (docs/benchmarks.md, "Idle memory, second pass"). The cap holds only for arenas made after it,
# so it is set here, before NumPy, LanceDB or ONNX Runtime start their threads.
limit_arenas(2)
fix_mmap_threshold()
# Read by pyarrow once, when it is first imported: so also here, before anything imports it.
prefer_system_arrow_pool()

__version__ = "0.1.0"
