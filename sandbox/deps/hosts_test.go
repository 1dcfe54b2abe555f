package deps

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/coreagent/core/sandbox/egress"
)

func TestDepsHosts(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"pypi.org:443", "files.pythonhosted.org:443"}, pipHosts(append([]string{"pip"}, pipIndexArgs(nil)...)))
	assert.Equal(t, []string{"127.0.0.1:9", "mirror:443"},
		pipHosts(append([]string{"pip"}, pipIndexArgs([]string{"PIP_INDEX_URL=http://127.0.0.1:9/simple/", "PIP_EXTRA_INDEX_URL=https://mirror/simple", "PIP_FIND_LINKS=/srv/wheels"})...)))
	assert.Equal(t, append(append([]string(nil), cratesIOHosts...), "127.0.0.1:9"),
		cargoHosts([]string{"CARGO_HOME=/tmp/cargo", "CARGO_REGISTRIES_LOCAL_INDEX=sparse+http://127.0.0.1:9/cargo/"}))
	assert.Equal(t, []string{"python3", "-m", "pip", "install", "--proxy", egress.ProxyURL, "-r", "x"}, WithPipProxy([]string{"python3", "-m", "pip", "install", "-r", "x"}))
	assert.Equal(t, []string{"npm", "ci"}, WithPipProxy([]string{"npm", "ci"}))
}
