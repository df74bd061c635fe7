#!/usr/bin/env python3
"""The BPF maps and programs one process holds, from its /proc fdinfo.

This bpftool shows no owner pids, and several trecords may run at once
(other tests), so a map name alone does not say whose map it is.

usage: bpf_owned.py maps PID           one "id name" line per map
       bpf_owned.py count PID NAME     entries in PID's map NAME (-1: none)
       bpf_owned.py progs PID          bpftool prog show -j of PID's programs
       bpf_owned.py synced PID TGID    1 if PID's pid/page trie has an entry
                                       of process TGID (its mappings are in), else 0
"""

import json
import os
import subprocess
import sys


def owned_ids(pid, kind):
    """Ids of the maps (kind "map") or programs ("prog") pid has open."""
    ids = set()
    d = "/proc/%d/fdinfo" % pid
    try:
        names = os.listdir(d)
    except OSError:
        return ids
    for n in names:
        try:
            with open(os.path.join(d, n)) as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
        except OSError:
            continue
        if "%s_type" % kind in fields and "%s_id" % kind in fields:
            ids.add(int(fields["%s_id" % kind]))
    return ids


def bpftool_json(*args):
    p = subprocess.run(["bpftool"] + list(args) + ["-j"], capture_output=True,
                       text=True, timeout=60)
    if p.returncode != 0:
        return None
    try:
        return json.loads(p.stdout or "[]")
    except ValueError:
        return None


def maps(pid):
    ids = owned_ids(pid, "map")
    return [m for m in bpftool_json("map", "show") or [] if m.get("id") in ids]


def progs(pid):
    ids = owned_ids(pid, "prog")
    return [p for p in bpftool_json("prog", "show") or [] if p.get("id") in ids]


def count(pid, name):
    """Entries of pid's map called name (names are cut to 15 chars)."""
    total, found = 0, False
    for m in maps(pid):
        if m.get("name") != name[:15]:
            continue
        entries = bpftool_json("map", "dump", "id", str(m["id"]))
        if entries is None:
            return -1
        total += len(entries)
        found = True
    return total if found else -1


def synced(pid, tgid):
    """Whether pid's pid_page_to_mapping_info holds a key of process tgid
    (struct trec_pid_page_key: prefix_len, big-endian pid, page)."""
    for m in maps(pid):
        if m.get("name") != "pid_page_to_mapping_info"[:15]:
            continue
        for e in bpftool_json("map", "dump", "id", str(m["id"])) or []:
            f = e.get("formatted", {}).get("key")
            if isinstance(f, dict) and "pid_be" in f:
                be = int(f["pid_be"])
            else:
                raw = [int(b, 16) for b in e.get("key", [])]
                if len(raw) < 8:
                    continue
                be = int.from_bytes(bytes(raw[4:8]), "little")
            if int.from_bytes(be.to_bytes(4, "little"), "big") == tgid:
                return True
    return False


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    what, pid = sys.argv[1], int(sys.argv[2])
    if what == "maps":
        for m in maps(pid):
            print(m["id"], m.get("name", ""))
    elif what == "count" and len(sys.argv) == 4:
        print(count(pid, sys.argv[3]))
    elif what == "synced" and len(sys.argv) == 4:
        print(1 if synced(pid, int(sys.argv[3])) else 0)
    elif what == "progs":
        json.dump(progs(pid), sys.stdout)
        print()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
