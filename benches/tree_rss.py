#!/usr/bin/env python3
"""Usage: tree_rss.py COMMAND [ARG...]

Runs COMMAND (its output discarded) and measures the memory of it together with the
processes it starts, which GNU time cannot: time reports the largest single process.
Every 2 ms it adds up the resident memory (VmRSS) of the command and all its descendants,
and keeps the largest sum; a peak shorter than that can be missed. It also keeps the
command's own high-water mark (VmHWM) and the largest of its descendants': their sum is
not below the true peak (but for what grew in the last 2 ms of a process). Prints, in KiB: the sampled peak, that bound; exits with the
command's status.
"""
import os
import subprocess
import sys
import time


def memory(pid):
    """(VmRSS, VmHWM) in KiB, or None once the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            fields = dict(line.split(":", 1) for line in status if line.startswith("Vm"))
    except (OSError, ValueError):
        return None
    kib = lambda key: int(fields.get(key, "0 kB").split()[0])
    return kib("VmRSS"), kib("VmHWM")


def children(pid):
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as kids:
                found += [int(kid) for kid in kids.read().split()]
    except OSError:
        pass
    return found


def main():
    command = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = own = descendant = 0
    while command.poll() is None:
        mine = memory(command.pid)
        if mine is None:
            break
        total, own = mine[0], max(own, mine[1])
        stack = children(command.pid)
        while stack:
            pid = stack.pop()
            theirs = memory(pid)
            if theirs is not None:
                total += theirs[0]
                descendant = max(descendant, theirs[1])
            stack += children(pid)
        peak = max(peak, total)
        time.sleep(0.002)
    status = command.wait()
    print(peak, own + descendant)
    sys.exit(status)


main()
