# The test command (README): installs bubblewrap when it is missing and we are
# root, fetches the external fixtures, then vets and runs every test with -race.
.PHONY: test test-stress test-docker docker-images build fixtures bwrap vet staticcheck bench measures mutation

GO ?= go

# TEST_TIMEOUT bounds each package's tests. go test's default (10m) is too
# short for the sandbox package on a busy two-core machine; a hang still
# ends, with every goroutine's stack. 45m: every box command now starts
# its runner (core's executable) too, and the session's landing checks
# out the checked tree, so the sandbox and session packages take longer
# beside stress-ng; CI's whole run stays far inside its 90 minutes.
TEST_TIMEOUT ?= 45m

build:
	$(GO) build -o core ./cmd/core

# -vet=off: vet has just run whole (make vet); go test's own vet runs a
# subset of the same checks again, package by package.
test: bwrap fixtures vet staticcheck
	$(GO) test -race -count=1 -vet=off -timeout $(TEST_TIMEOUT) ./...

# The packages that spawn processes (sandboxes, git, the core binary, bot
# workers), run again with the machine kept busy beside them
# (scripts/stress.sh: stress-ng, bounded in time, stopped on exit).
STRESS_PKGS ?= ./sandbox/ ./session/... ./cmd/core/ ./bot/

test-stress: bwrap fixtures
	GO=$(GO) STRESS_TEST_TIMEOUT=$(TEST_TIMEOUT) ./scripts/stress.sh $(STRESS_PKGS)

# The Docker part of CI (docs/development.md): the Action's image built from the real
# Dockerfile on a base image made without a registry, run as GitHub runs a
# Docker action, and the escape battery against the Docker backend.
# PYTHON_IMAGE, NODE_IMAGE and RUST_IMAGE are toolchain images
# (docker/toolchain.Dockerfile) for the dependency steps and toolchain tests
# under the Docker backend.
DOCKER_IMAGE ?= core-action:ci
PYTHON_IMAGE ?= core-python:ci
NODE_IMAGE ?= core-node:ci
RUST_IMAGE ?= core-rust:ci
BROWSER_IMAGE ?= core-browser:ci

docker-images:
	./scripts/docker-images.sh $(DOCKER_IMAGE) $(PYTHON_IMAGE) $(NODE_IMAGE) $(RUST_IMAGE) $(BROWSER_IMAGE)

test-docker: fixtures docker-images
	CORE_REQUIRE_DOCKER=1 CORE_DOCKER_IMAGE=$(DOCKER_IMAGE) CORE_SANDBOX_IMAGE=$(DOCKER_IMAGE) CORE_TEST_PYTHON_IMAGE=$(PYTHON_IMAGE) \
		CORE_TEST_NODE_IMAGE=$(NODE_IMAGE) CORE_TEST_RUST_IMAGE=$(RUST_IMAGE) CORE_TEST_BROWSER_IMAGE=$(BROWSER_IMAGE) \
		$(GO) test -count=1 -timeout $(TEST_TIMEOUT) -run 'Docker' ./sandbox/ ./session/ ./cmd/core/

vet:
	$(GO) vet ./...

# staticcheck at one exact version (2026.2.2, which knows Go 1.26),
# installed into .cache/bin (ignored by git and Docker) when it is missing
# or another version; its checks run on the tests too.
STATICCHECK_VERSION ?= v0.8.2
STATICCHECK := $(CURDIR)/.cache/bin/staticcheck

staticcheck:
	@if ! $(STATICCHECK) -version 2>/dev/null | grep -qF '($(STATICCHECK_VERSION:v%=%))'; then \
		echo "installing staticcheck $(STATICCHECK_VERSION) into .cache/bin" >&2; \
		GOBIN=$(CURDIR)/.cache/bin $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION); \
	fi
	$(STATICCHECK) ./...

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
	./bench/box.sh
	./bench/firstrun.sh
	./bench/bot.sh
	./bench/context.sh
	./bench/verify.sh
	$(GO) test -run '^$$' -bench . -benchmem ./...

# The measures of the house (#36) written into the footer of
# docs/architecture.md (scripts/measures.sh): a tool, not part of `test`.
# MEASURES_FLAGS="--write --quick" keeps the linters' last figures.
MEASURES_FLAGS ?= --write

measures:
	GO=$(GO) ./scripts/measures.sh $(MEASURES_FLAGS)

# The mutation sample of the security rules (#36, scripts/mutation.sh):
# a tool, not part of `test`. MUTATION_FLAGS=--held measures the held-out
# half.
MUTATION_FLAGS ?=

mutation:
	GO=$(GO) ./scripts/mutation.sh $(MUTATION_FLAGS)
