#!/usr/bin/env python3
"""Checks the include graph of src/ against the layers of docs/architecture.md, lowest first:
core; options, schedule, net, http, stats (side by side); workload; engine; run; report; search;
main.
An include may point down or sideways within a row, never up; no two headers share a name.
Prints the graph between folders (with counts) and exits 1 on an upward include."""
import collections, os, re, sys

LAYERS = [["core"], ["options", "schedule", "net", "http", "stats"], ["workload"], ["engine"],
          ["run"], ["report"], ["search"], ["main"]]
RANK = {folder: i for i, row in enumerate(LAYERS) for folder in row}

src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
edges = collections.Counter()
bad = []
names = collections.defaultdict(list)
for root, _, files in os.walk(src):
    for name in files:
        if not name.endswith((".hpp", ".cpp")):
            continue
        path = os.path.join(root, name)
        rel = os.path.relpath(path, src)
        folder = rel.split(os.sep)[0] if os.sep in rel else "main"
        if folder not in RANK:
            bad.append(f"{rel}: folder '{folder}' is in no layer")
            continue
        if name.endswith(".hpp"):
            names[name].append(rel)
        for line in open(path, encoding="utf-8"):
            m = re.match(r'\s*#include\s+"([^"/]+)/[^"]+"', line)
            if not m:
                continue
            target = m.group(1)
            if target not in RANK:
                bad.append(f"{rel}: includes from unknown folder '{target}'")
                continue
            if target != folder:
                edges[(folder, target)] += 1
            if RANK[target] > RANK[folder]:
                bad.append(f"{rel}: {folder} includes {line.strip()} from {target}, a higher layer")
for name, paths in names.items():
    if len(paths) > 1:
        bad.append(f"header name {name} is used by {', '.join(sorted(paths))}")

for (a, b), n in sorted(edges.items(), key=lambda e: (RANK[e[0][0]], e[0][0], RANK[e[0][1]], e[0][1])):
    print(f"{a} -> {b} ({n})")
for problem in bad:
    print("FAIL:", problem)
sys.exit(1 if bad else 0)
