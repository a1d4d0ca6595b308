"""Child processes that die with their parent, however it dies (Linux's parent-death signal).

The supervisor behind `make run` (ops/supervisor.py) arranges it for every child it starts, and the
turn-timer worker for the scheduler process it forks.
"""

from __future__ import annotations

import ctypes
import os
import sys

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def set_parent_death_signal(signum: int, parent: int) -> None:
    """Ask the kernel to send `signum` to this process when its parent dies; if `parent` is gone already, now."""
    if not sys.platform.startswith("linux"):
        return  # elsewhere a SIGKILLed supervisor leaves its children to be stopped by hand
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:  # the parent died before the signal was arranged
        os.kill(os.getpid(), signum)
