package deps

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/coreagent/core/sandbox/egress"
)

// What the network step sees of the host: the registry settings by name,
// exactly, and no credential.
func TestHostEnvNames(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"NPM_CONFIG_REGISTRY", "npm_config_registry"}, HostEnvNames("node"))
	assert.Equal(t, []string{"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_TRUSTED_HOST", "PIP_FIND_LINKS"}, HostEnvNames("python"))
	assert.Equal(t, []string{"CARGO_REGISTRIES_CRATES_IO_PROTOCOL", "CARGO_NET_GIT_FETCH_WITH_CLI"}, HostEnvNames("rust"))
	assert.Nil(t, HostEnvNames("go"))
	assert.Nil(t, HostEnvNames(""))
}

func TestRegistryEnv(t *testing.T) {
	t.Parallel()
	h := Host{Env: []string{
		"PIP_INDEX_URL=https://pypi.example.com/simple",
		"PIP_INDEX_URL_TOKEN=secret", // a longer name is another variable
		"PIP_PASSWORD=secret",
		"NPM_TOKEN=secret",
		"npm_config_registry=https://npm.example.com/",
		"NPM_CONFIG__AUTH=secret",
		"HOME=/root",
		"PIP_FIND_LINKS=https://wheels.example.com/",
	}}
	tests := []struct {
		eco  string
		want []string
	}{
		{eco: "python", want: []string{"PIP_INDEX_URL=https://pypi.example.com/simple", "PIP_FIND_LINKS=https://wheels.example.com/"}},
		{eco: "node", want: []string{"npm_config_registry=https://npm.example.com/"}},
		{eco: "rust"},
		{eco: "go"},
	}
	for _, tt := range tests {
		t.Run(tt.eco, func(t *testing.T) {
			t.Parallel()
			got := h.RegistryEnv(tt.eco)
			assert.Equal(t, tt.want, got)
			for _, kv := range got {
				assert.NotContains(t, kv, "secret")
			}
		})
	}
}

func TestWithPipProxy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		argv string
		want string
	}{
		{name: "pip install", argv: "python3 -m pip install -r requirements.txt",
			want: "python3 -m pip install --proxy " + egress.ProxyURL + " -r requirements.txt"},
		{name: "pip install alone", argv: "python3 -m pip install", want: "python3 -m pip install --proxy " + egress.ProxyURL},
		{name: "pip download", argv: "python3 -m pip download x", want: "python3 -m pip download x"},
		{name: "not -m", argv: "python3 -c pip install", want: "python3 -c pip install"},
		{name: "another module", argv: "python3 -m pipx install x", want: "python3 -m pipx install x"},
		{name: "too short", argv: "python3 -m pip", want: "python3 -m pip"},
		{name: "npm", argv: "npm ci --ignore-scripts", want: "npm ci --ignore-scripts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, strings.Join(WithPipProxy(strings.Fields(tt.argv)), " "))
		})
	}
}

func TestPipIndexArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  []string
		want []string
	}{
		{name: "PyPI", want: []string{"--index-url", "https://pypi.org/simple"}},
		{name: "an empty index is PyPI", env: []string{"PIP_INDEX_URL="}, want: []string{"--index-url", "https://pypi.org/simple"}},
		{name: "every setting", env: []string{
			"PIP_INDEX_URL=https://pypi.example.com/simple",
			"PIP_EXTRA_INDEX_URL=https://a.example.com/simple https://b.example.com/simple",
			"PIP_TRUSTED_HOST=a.example.com",
			"PIP_FIND_LINKS=https://wheels.example.com/",
			"PIP_CERT=/etc/cert.pem",
		}, want: []string{
			"--index-url", "https://pypi.example.com/simple",
			"--extra-index-url", "https://a.example.com/simple", "--extra-index-url", "https://b.example.com/simple",
			"--trusted-host", "a.example.com",
			"--find-links", "https://wheels.example.com/",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, pipIndexArgs(tt.env))
		})
	}
}

func TestCargoHosts(t *testing.T) {
	t.Parallel()
	crates := []string{"index.crates.io:443", "static.crates.io:443", "github.com:443"}
	assert.Equal(t, crates, cargoHosts(nil))
	got := cargoHosts([]string{
		"CARGO_REGISTRIES_MINE_INDEX=sparse+https://cargo.example.com/index/",
		"CARGO_REGISTRIES_OTHER_INDEX=https://github.com/other/index", // already reached
		"CARGO_REGISTRIES_MINE_TOKEN=https://token.example.com/",
		"CARGO_REGISTRY_X_INDEX=https://registry.example.com/",
		"MY_CARGO_REGISTRIES_X_INDEX=https://my.example.com/",
	})
	assert.Equal(t, append(crates, "cargo.example.com:443"), got)
}

func TestNpmStepEnv(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{
		"npm_config_cache=/tmp/npm-cache", "npm_config_update_notifier=false", "npm_config_userconfig=/dev/null",
		"npm_config_registry=https://npm.example.com/", "npm_config_replace_registry_host=npmjs",
		"npm_config_ignore_scripts=true",
	}, npmStepEnv("https://npm.example.com/"))
}

func TestNpmRegistry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  []string
		want string
	}{
		{name: "npm's own", want: "https://registry.npmjs.org/"},
		{name: "upper case", env: []string{"NPM_CONFIG_REGISTRY=https://a.example.com/"}, want: "https://a.example.com/"},
		{name: "lower case wins", env: []string{"npm_config_registry=https://b.example.com/", "NPM_CONFIG_REGISTRY=https://a.example.com/"}, want: "https://b.example.com/"},
		{name: "empty is unset", env: []string{"NPM_CONFIG_REGISTRY=https://a.example.com/", "npm_config_registry="}, want: "https://a.example.com/"},
		{name: "a prefix is another name", env: []string{"NPM_CONFIG_REGISTRY_X=https://x.example.com/"}, want: "https://registry.npmjs.org/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, npmRegistry(tt.env))
		})
	}
}
