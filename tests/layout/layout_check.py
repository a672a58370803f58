#!/usr/bin/env python3
"""The layout check (issue #29; docs/testing.md "Layout check"): the build's own link graph
(build/layout-links.tsv, written by cmake/CtteLayout.cmake from every target's LINK_LIBRARIES)
against the folder order of the review (../shared/reviews/2026-12-02-architecture.md):

    base, regmap, rtl          the ground
    oracle, db                 on the ground
    lab, reports               above those
    runner                     above them
    tools, bench               on top
    tests                      anything below it

Rules, for every project target that links a project library:
  1. upward: a library never links one of a folder of a higher rank;
  2. sideways: nor one of another folder of the same rank (oracle <-> db, lab <-> reports);
  3. inward: inside one top folder, a library links only libraries of its own folder or of a
     folder above it (lab/sim may link lab; lab may not link lab/sim, nor lab/sim lab/net),
     except the pairs in ALLOWED_DOWN, each with its reason.
Test code (tests/) may link anything but may not be linked by a library.

A second check reads the sources: within the folders given, no include cycle between modules
(a module is a .h/.cc pair: files.h + files.cc). base/ had one (files.cc <-> output.cc); oracle/
and runner/ still have some, left for the cut.

Usage: layout_check.py LAYOUT_TSV    check the build's graph (exit 1 on a violation)
       layout_check.py --include-cycles SOURCE_DIR FOLDER...   no module include cycle in them
       layout_check.py --self-test   show that each rule fails on a graph that breaks it
"""
import os
import re
import sys

RANK = {"base": 0, "regmap": 0, "rtl": 0, "oracle": 1, "db": 1, "lab": 2, "reports": 2,
        "runner": 3, "tools": 4, "bench": 4, "tests": 5}
# (target folder, dependency folder): reason a library may link a folder below its own.
ALLOWED_DOWN = {
    ("rtl", "rtl/runtime"): "every image links the one Verilator runtime built for all of them",
}


def top(folder):
    return folder.split("/")[0]


def violations(rows):
    """rows: [(target, folder, [deps])]. Returns one message per violation."""
    folder_of = {t: f for t, f, _ in rows}
    out = []
    for target, folder, deps in rows:
        if top(folder) not in RANK:
            continue
        for dep in deps:
            if dep not in folder_of or dep == target:
                continue  # a system or imported library
            dfolder = folder_of[dep]
            if top(dfolder) not in RANK:
                continue
            t, d = top(folder), top(dfolder)
            edge = "%s (%s) links %s (%s)" % (target, folder, dep, dfolder)
            if d == "tests" and t != "tests":
                out.append(edge + ": a library links test code")
            elif t == "tests":
                continue
            elif RANK[d] > RANK[t]:
                out.append(edge + ": upward (%s is above %s)" % (d, t))
            elif RANK[d] == RANK[t] and d != t:
                out.append(edge + ": sideways (%s and %s are one layer)" % (t, d))
            elif d == t and not (folder + "/").startswith(dfolder + "/") and \
                    (folder, dfolder) not in ALLOWED_DOWN:
                out.append(edge + ": inward (%s is not %s or above it)" % (dfolder, folder))
    return out


def include_cycles(src, folders):
    """Module-level include cycles (lists of modules) among the files of `folders`."""
    edges = {}
    for folder in folders:
        for dirpath, _, files in os.walk(os.path.join(src, folder)):
            for name in files:
                if not name.endswith((".h", ".cc")):
                    continue
                path = os.path.join(dirpath, name)
                module = os.path.relpath(path, src).rsplit(".", 1)[0]
                with open(path, errors="replace") as f:
                    for line in f:
                        m = re.match(r'#include "([^"]+)\.h"', line)
                        if m and m.group(1) != module and \
                                os.path.exists(os.path.join(src, m.group(1) + ".h")):
                            edges.setdefault(module, set()).add(m.group(1))
    return cycles_of(edges)


def cycles_of(edges):
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(100000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def read(path):
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3:
                continue
            rows.append((parts[0], parts[1], [d for d in parts[2].split(";") if d]))
    return rows


def self_test():
    good = [("ctte_base", "base", []), ("ctte_db", "db", ["ctte_base"]),
            ("ctte_oracle", "oracle", ["ctte_base"]), ("ctte_lab", "lab", ["ctte_base"]),
            ("ctte_lab_sim", "lab/sim", ["ctte_lab", "ctte_oracle"]),
            ("ctte_lab_net", "lab/net", ["ctte_lab"]), ("ctte_reports", "reports", ["ctte_db"]),
            ("ctte_runner", "runner", ["ctte_lab", "ctte_db"]),
            ("helper", "tests/lab", ["ctte_lab"]), ("x_test", "tests/x", ["helper", "ctte_runner"])]
    cases = {
        "upward": ("ctte_db", ["ctte_base", "ctte_runner"]),
        "sideways": ("ctte_reports", ["ctte_db", "ctte_lab"]),
        "inward": ("ctte_lab", ["ctte_base", "ctte_lab_sim"]),
        "sibling": ("ctte_lab_sim", ["ctte_lab", "ctte_lab_net"]),
        "test code": ("ctte_lab", ["ctte_base", "helper"]),
    }
    if violations(good):
        print("self-test: the good graph fails: %s" % violations(good))
        return 1
    cycle = cycles_of({"base/files": {"base/output"}, "base/output": {"base/files", "base/text"}})
    if cycle != [["base/files", "base/output"]]:
        print("self-test: the files <-> output cycle not found: %s" % cycle)
        return 1
    print("self-test: include cycle caught: %s" % " <-> ".join(cycle[0]))
    for name, (target, deps) in cases.items():
        bad = [(t, f, deps if t == target else d) for t, f, d in good]
        found = violations(bad)
        if len(found) != 1:
            print("self-test: %s: expected one violation, got %s" % (name, found))
            return 1
        print("self-test: %s caught: %s" % (name, found[0]))
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) >= 4 and argv[1] == "--include-cycles":
        found = include_cycles(argv[2], argv[3:])
        for c in found:
            print("layout: include cycle: " + " <-> ".join(c))
        if not found:
            print("layout: no module include cycle in " + ", ".join(argv[3:]))
        return 1 if found else 0
    if len(argv) != 2:
        print(__doc__)
        return 2
    rows = read(argv[1])
    libraries = [r for r in rows if r[1].split("/")[0] in RANK and r[1].split("/")[0] != "tests"]
    if not libraries:
        print("layout: %s names no target" % argv[1])
        return 1
    found = violations(rows)
    for v in found:
        print("layout: " + v)
    if found:
        return 1
    edges = sum(len(d) for _, _, d in rows)
    print("layout: %d targets, %d link edges: no upward, sideways or inward link" %
          (len(rows), edges))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
