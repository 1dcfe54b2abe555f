# The test command (README): installs bubblewrap when it is missing and we are
# root, fetches the external fixtures, then vets and runs every test with -race.
.PHONY: test build fixtures bwrap vet bench

GO ?= go

build:
	$(GO) build -o core ./cmd/core

test: bwrap fixtures vet
	$(GO) test -race -count=1 ./...

vet:
	$(GO) vet ./...

fixtures:
	./scripts/fixtures.sh

bwrap:
	@if ! command -v bwrap >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing bubblewrap" >&2; \
			apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null; \
		else \
			echo "bwrap is missing and we are not root: sandbox tests will skip (apt-get install bubblewrap)" >&2; \
		fi; \
	fi

bench:
	./bench/sandbox.sh
	./bench/bot.sh
	./bench/context.sh
	$(GO) test -run '^$$' -bench . -benchmem ./...
