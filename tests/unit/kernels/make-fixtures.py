#!/usr/bin/env python3
"""Writes the kernel fixtures of tests/unit/probe_plan_test.cpp.

usage: make-fixtures.py OUT.txt BTF RELEASE

Reads a kernel's BTF (a .btf file, or /sys/kernel/btf/vmlinux) with
`bpftool btf dump ... format raw` and writes what iolens's probe plan reads
from it (probes::Features): the tracepoints iolens's BPF programs attach to
(every SEC("tp_btf/...") and SEC("raw_tp/...") in bpf/*.bpf.c), each with
the argument count of its btf_trace_<name> prototype or "missing"; whether
the kernel has struct folio and the bpf_rdonly_cast kfunc; and whether its
BPF knows task storage and ring buffers (the map types in enum bpf_map_type:
on a live kernel iolens probes them, which needs privileges).

The fixtures for the kernel matrix (docs/kernel-matrix.md) were made with
  make-fixtures.py k5.10.txt k_5.10.btf 5.10.0-32-amd64
  make-fixtures.py k6.1.txt k61.btf 6.1.0-50-amd64
  make-fixtures.py k6.12.txt k_6.12.btf 6.12.117+deb13-amd64
  make-fixtures.py k6.18.txt /sys/kernel/btf/vmlinux "$(uname -r)"
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def bpf_tracepoints():
    names = set()
    for path in glob.glob(os.path.join(ROOT, "bpf", "*.bpf.c")):
        with open(path) as f:
            names.update(re.findall(r'SEC\("(?:tp_btf|raw_tp)/([a-z0-9_]+)"\)', f.read()))
    return sorted(names)


def parse_raw(btf):
    """id -> (kind, name, attrs, member lines) from bpftool's raw dump."""
    out = subprocess.run(["bpftool", "btf", "dump", "file", btf, "format", "raw"], check=True,
                         capture_output=True, text=True).stdout
    types, current = {}, None
    for line in out.splitlines():
        m = re.match(r"\[(\d+)\] (\w+) '([^']*)'(.*)", line)
        if m:
            current = [m.group(2), m.group(3), dict(re.findall(r"(\w+)=(\S+)", m.group(4))), []]
            types[int(m.group(1))] = current
        elif current is not None:
            current[3].append(line.strip())
    return types


def arity(types, typedef):
    """btf_trace_<tp> is void (*)(void *data, <arguments>): vlen less one."""
    ptr = types.get(int(typedef[2]["type_id"]))
    if not ptr or ptr[0] != "PTR":
        return None
    proto = types.get(int(ptr[2]["type_id"]))
    if not proto or proto[0] != "FUNC_PROTO" or int(proto[2]["vlen"]) < 1:
        return None
    return int(proto[2]["vlen"]) - 1


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    out, btf, release = sys.argv[1:]
    types = parse_raw(btf)
    by_name = {}
    for t in types.values():
        by_name.setdefault((t[0], t[1]), t)
    map_types = set()
    for t in types.values():
        if t[0] in ("ENUM", "ENUM64") and t[1] == "bpf_map_type":
            map_types.update(re.findall(r"'(\w+)'", " ".join(t[3])))
    yes = lambda b: "yes" if b else "no"
    lines = ["# " + os.path.basename(out) + ": made by make-fixtures.py from the BTF of " + release + "; do not edit.",
             "release " + release,
             "folio " + yes(("STRUCT", "folio") in by_name),
             "kfunc_rdonly_cast " + yes(("FUNC", "bpf_rdonly_cast") in by_name),
             "task_storage " + yes("BPF_MAP_TYPE_TASK_STORAGE" in map_types),
             "ringbuf " + yes("BPF_MAP_TYPE_RINGBUF" in map_types)]
    for tp in bpf_tracepoints():
        t = by_name.get(("TYPEDEF", "btf_trace_" + tp))
        n = arity(types, t) if t else None
        lines.append("tracepoint %s %s" % (tp, "missing" if t is None else n if n is not None else "unknown"))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
