# Real upstream fixes on real repositories no test of core chose, for
# bench/realrepos.sh (core replays each fix) and bench/review.sh (core
# reviews each fix, and its reverse). Sourced, not run.
# shellcheck shell=bash disable=SC2034
# name | owner/name | fix commit | check | SRC (the model writes) | TESTS (on the start) | note
tasks=(
	"go-uuid|google/uuid|a2b2b32|go test ./...|version7.go|uuid_test.go|Go, no dependencies"
	"go-pflag|spf13/pflag|ed81e5b|go test ./...|ip.go|ip_test.go|Go, no dependencies"
	"go-semver|Masterminds/semver|f1b17e8|go test ./...|constraints.go|constraints_test.go|Go, no dependencies, a one-line fix of a comparison"
	"go-prometheus|prometheus/client_golang|436bf2e0|go test ./prometheus/promhttp/|prometheus/promhttp/http.go|prometheus/promhttp/http_test.go|Go, a cold build of protobuf, procfs and the rest: minutes"
	"py-more-itertools|more-itertools/more-itertools|f51a53b|python3 -m pytest -q tests/test_more.py|more_itertools/more.py|tests/test_more.py|Python, pyproject.toml (flit)"
	"py-cachetools|tkem/cachetools|57d2e48|python3 -m pytest -q tests/test_cachedmethod.py|src/cachetools/_cachedmethod.py|tests/test_cachedmethod.py|Python, src layout"
	"py-koans|gregmalcolm/python_koans|afdc39f|python3 -m pytest -q python3/runner/runner_tests/test_sensei.py|python2/runner/sensei.py python3/runner/sensei.py|python2/runner/runner_tests/test_sensei.py python3/runner/runner_tests/test_sensei.py|Python without any manifest; the fix's tests only drop brittle ones (passing on both sides is right)"
	"node-mime-types|jshttp/mime-types|7c3c63d|npm test|mimeScore.js|test/test.js|Node.js, mocha, no lockfile"
	"node-cookie|jshttp/cookie|e100428|npm test|index.js|test/serialize.js|Node.js, mocha, no lockfile"
	"node-camelcase|sindresorhus/camelcase|e7dccc9|npx ava|index.js|test.js|Node.js, ava (writes node_modules/.cache/ava), package-lock=false"
	"node-minimatch|isaacs/minimatch|49ae7a2|npm test|minimatch.js|test/negative-extglob-anchoring.js tap-snapshots/test/basic.js.test.cjs|Node.js, tap 16 with coverage (nyc writes node_modules/.cache), package-lock.json"
	"rust-itoa-write|dtolnay/itoa|bd4884d|cargo test|src/lib.rs|tests/test.rs|Rust, no dependencies, no Cargo.lock"
	"rust-itoa-fmt|dtolnay/itoa|9f3e867|cargo test|src/lib.rs|tests/test.rs|Rust, no dependencies, no Cargo.lock"
)
