# Two commands (see README): `make report` builds the reports, `make test` runs every test.
.PHONY: report test lint bench clean

report:
	@scripts/bootstrap.sh run
	.venv/bin/reportgen build inputs/scenarios.csv --out outputs

test:
	@scripts/bootstrap.sh test
	.venv/bin/python -m pytest -q
	.venv/bin/ruff check reportgen tests benchmarks
	.venv/bin/mypy

bench:
	@scripts/bootstrap.sh test
	.venv/bin/python benchmarks/speed.py

clean:
	rm -rf outputs/*.xlsx outputs/*.pdf outputs/*.csv outputs/*.json
