"""Handing freed memory back to the operating system."""
from __future__ import annotations

import ctypes


def release_freed_memory() -> None:
    """Return the pages of freed heap memory to the OS (glibc keeps them otherwise).

    Building an index allocates temporaries several times the size of what it keeps (per-field
    token lists, bm25s intermediates, the snapshot's row dicts and 100,000 small vectors); once
    they are freed, glibc holds on to their pages and the process's RSS stays hundreds of MB above
    what it uses. Call it after such garbage is gone: it walks the heap (tens of ms at 100,000 tools).
    """
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to do
        pass
