# The two commands: `make render` and `make test`. Each sets everything up first.
PY := .venv/bin/python

.PHONY: setup render test bench clean

setup:
	@bash scripts/setup.sh

render: setup
	$(PY) render.py all $(ARGS)

test: setup
	$(PY) -m pytest $(ARGS)

bench: setup
	$(PY) bench/engine.py

clean:
	rm -rf media .pytest_cache
