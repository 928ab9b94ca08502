"""The exceptions reportgen raises, split by whose fault it is.

* ReportgenError
  x InputError                  the user can fix it: exit code 2, nothing written
    + InputFileError            a file the user named cannot be read: missing, not a regular
                                file (a folder, pipe or device), unreadable or over its limit
      + ScenarioFileError       the scenario file cannot be used: also empty, mis-encoded,
                                corrupt or hostile
    + OutputOverInputError      an output would replace a file the build reads
    + ScenarioValidationError   one or more cell-level problems, all listed in ``issues``
    + PlanFileError             review: the plan file is not a readable reportgen output
    + ActualsError              review: problems in the actuals, all listed in ``problems``
  x OutputError                 an output cannot be written (read-only folder, file locked)
  x CatalogError                the shipped catalog data is inconsistent (a bug in our data)

A scenario that merely does not fit (weights larger than memory, a latency target no batch can
meet) is not an error: it is a result with a reason in its ``bottleneck`` and ``notes`` columns.
"""

from __future__ import annotations

from dataclasses import dataclass


class ReportgenError(Exception):
    """Base class of every error reportgen raises on purpose."""


class InputError(ReportgenError):
    """The input is wrong in a way the user can fix."""


class InputFileError(InputError):
    """A file the user named cannot be read (see reportgen.inputfiles)."""


class ScenarioFileError(InputFileError):
    """The scenario file itself cannot be used (missing, empty, corrupt, too large)."""


class OutputOverInputError(InputError):
    """An output path resolves to a file the build reads: writing it would destroy the input."""


@dataclass(frozen=True)
class Issue:
    """One problem found in the input: where, what was found, what was expected, what to do."""

    row: int | None  # 1-based data row as a spreadsheet shows it (header = row 1), None = file-wide
    column: str | None
    found: str
    expected: str
    scenario: str | None = None
    hint: str = ""

    def describe(self) -> str:
        """The issue as one line of the error message."""
        where = []
        if self.row is not None:
            where.append(f"row {self.row}")
            if self.scenario:
                where[-1] += f' (scenario "{self.scenario}")'
        if self.column:
            where.append(f"column {self.column}")
        head = ", ".join(where) + ": " if where else ""
        tail = f"; {self.hint}" if self.hint else ""
        line = f"{head}{self.found}; expected {self.expected}{tail}"
        return line if line.endswith((".", "?", "!")) else line + "."


MAX_ISSUES_SHOWN = 200  # a file with thousands of bad cells: the first 200 and a count


class ScenarioValidationError(InputError):
    """Cell-level problems in the scenario table; ``issues`` lists every one of them (the
    message shows the first MAX_ISSUES_SHOWN and counts the rest)."""

    def __init__(self, source: str, issues: list[Issue]) -> None:
        self.source = source
        self.issues = issues
        super().__init__(self.render())

    def render(self) -> str:
        """The whole message: a headline, one line per issue, and what to do next."""
        n = len(self.issues)
        lines = [f"{self.source} has {n:,} problem{'s' if n != 1 else ''}; nothing was written."]
        lines += ["  " + issue.describe() for issue in self.issues[:MAX_ISSUES_SHOWN]]
        if n > MAX_ISSUES_SHOWN:
            lines.append(f"  ... and {n - MAX_ISSUES_SHOWN:,} more (the first "
                         f"{MAX_ISSUES_SHOWN} are shown); fix these and run "
                         "`reportgen validate` again.")
        lines.append("Run `reportgen columns` to see every column, its unit and allowed values.")
        return "\n".join(lines)


class OutputError(ReportgenError):
    """An output file cannot be written."""


class CatalogError(ReportgenError):
    """The shipped GPU, model or efficiency catalog is inconsistent."""


# --- `reportgen review` ------------------------------------------------------------------------


class PlanFileError(InputError):
    """The plan given to `reportgen review` is not a workbook or results CSV that `reportgen
    build` wrote, or cannot be read back."""


class ActualsError(InputError):
    """Problems in the actuals given to `reportgen review`; ``problems`` lists every one."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        n = len(problems)
        lines = [f"the actuals have {n:,} problem{'s' if n != 1 else ''}; nothing was written."]
        lines += ["  " + p for p in problems[:MAX_ISSUES_SHOWN]]
        if n > MAX_ISSUES_SHOWN:
            lines.append(f"  ... and {n - MAX_ISSUES_SHOWN:,} more.")
        lines.append("Run `reportgen columns --actuals` for the actuals template and "
                     "docs/retrospective.md for the Prometheus and billing exports it reads.")
        super().__init__("\n".join(lines))
