"""The repository's docs, package and templates stand alone: they never point at design notes or
reference files outside the repository, and every relative link in the Markdown docs resolves to
a file of the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = re.compile(r"MODEL\.md|ARCHITECTURE\.md|STYLE-ANCHORS|\.\./shared|shared/(?:reference|"
                     r"seed|design|tools)")
SCANNED = ["README.md", "Makefile", "docs", "reportgen", "templates", "scripts", "benchmarks",
           "inputs"]
SUFFIXES = {".md", ".py", ".j2", ".css", ".csv", ".txt", ""}


def _files() -> list[Path]:
    out = []
    for name in SCANNED:
        path = ROOT / name
        candidates = [path] if path.is_file() else sorted(path.rglob("*"))
        out += [p for p in candidates if p.is_file() and p.suffix in SUFFIXES
                and "__pycache__" not in p.parts]
    return out


def test_nothing_refers_to_files_outside_the_repository() -> None:
    found = [f"{p.relative_to(ROOT)}:{n}: {line.strip()[:100]}"
             for p in _files()
             for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(),
                                      start=1)
             if OUTSIDE.search(line)]
    assert not found, "references outside the repository:\n" + "\n".join(found)


@pytest.mark.parametrize("doc", sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")]),
                         ids=lambda p: p.name)
def test_relative_links_resolve(doc: Path) -> None:
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", doc.read_text(encoding="utf-8"))
    missing = [link for link in links if "://" not in link and not link.startswith("mailto:")
               and not (doc.parent / link).exists()]
    assert not missing, f"{doc.name}: links to missing files {missing}"
