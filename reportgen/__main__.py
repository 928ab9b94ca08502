"""`python -m reportgen` runs the command line."""

from reportgen.cli import main

raise SystemExit(main())
