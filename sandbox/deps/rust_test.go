package deps

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCargoIndexes: the index of each registry Cargo.toml names comes
// from the host's CARGO_REGISTRIES_<NAME>_INDEX, looked up by name (it
// cannot be listed ahead); HostEnv's own are kept, and nothing else is
// read.
func TestCargoIndexes(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"CARGO_REGISTRIES_MY_REG_INDEX": "http://127.0.0.1:9/my-reg/",
		"CARGO_REGISTRIES_MY_REG_TOKEN": "secret",
		"CARGO_REGISTRIES_OTHER_INDEX":  "http://127.0.0.1:9/other/",
	}
	// As sandbox.ConfigFromEnv sets sandbox.Config.CargoIndex.
	cargoIndex := func(name string) string { return env[CargoIndexVar(name)] }
	tests := []struct {
		name     string
		hostEnv  []string
		manifest string
		want     []string
	}{
		{name: "inline table", manifest: "[dependencies]\ngreet = { version = \"1\", registry = \"my-reg\" }\n",
			want: []string{"CARGO_REGISTRIES_MY_REG_INDEX=http://127.0.0.1:9/my-reg/"}},
		{name: "dependency table", manifest: "[dependencies.greet]\nversion = \"1\"\nregistry = \"my-reg\"\n",
			want: []string{"CARGO_REGISTRIES_MY_REG_INDEX=http://127.0.0.1:9/my-reg/"}},
		{name: "a name the host does not set", manifest: "[dependencies]\ngreet = { version = \"1\", registry = \"unset\" }\n"},
		{name: "crates.io", manifest: "[dependencies]\ngreet = \"1\"\n"},
		{name: "HostEnv's own first", hostEnv: []string{"CARGO_REGISTRIES_MY_REG_INDEX=http://127.0.0.1:9/given/"},
			manifest: "[dependencies]\ngreet = { version = \"1\", registry = \"my-reg\" }\n",
			want:     []string{"CARGO_REGISTRIES_MY_REG_INDEX=http://127.0.0.1:9/given/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			host := Host{Env: tt.hostEnv, CargoIndex: cargoIndex}
			assert.Equal(t, tt.want, host.cargoIndexes([]byte(tt.manifest)))
		})
	}
}
