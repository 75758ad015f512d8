# Conveniences around run.sh (the README's two commands work without make).
.PHONY: setup render test bench clean

setup:
	@bash scripts/setup.sh test

render:
	@bash run.sh render $(ARGS)

test:
	@bash run.sh test $(ARGS)

bench: setup
	.venv/bin/python bench/engine.py

clean:
	rm -rf media .pytest_cache
