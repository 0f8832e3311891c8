"""The lint gate's cycle check: no import cycle among the project's own modules.

import-linter's contracts (pyproject.toml) pin the direction between layers; this finds any cycle at
all, between any two modules of ``annotator``, ``api``, ``config``, ``evaluation`` and ``scoring``, counting imports
inside functions too (grimp's graph, the one import-linter builds). Prints each cycle's modules and
exits 1 if there is one.
"""

from __future__ import annotations

import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("annotator", "api", "config", "evaluation", "scoring")


def strongly_connected(successors: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative: the groups of modules that import each other, larger than one.

    >>> strongly_connected({"a": ["b"], "b": ["a"], "c": ["a"]})
    [['a', 'b']]
    >>> strongly_connected({"a": ["b"], "b": []})
    []
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[list[str]] = []
    for root in sorted(successors):
        if root in index:
            continue
        work = [(root, iter(successors[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors.get(child, []))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def main() -> int:
    sys.path.insert(0, str(ROOT))
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    own = {m for m in graph.modules if m.split(".")[0] in PACKAGES}
    successors = {m: sorted(graph.find_modules_directly_imported_by(m) & own) for m in own}
    cycles = strongly_connected(successors)
    for group in cycles:
        print("import cycle:", " <-> ".join(group))
    print(f"{len(own)} modules, {len(cycles)} import cycles")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
