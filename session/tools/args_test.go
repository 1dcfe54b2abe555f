package tools

import (
	"testing"

	"github.com/coreagent/core/toon"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestArgsString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     Args
		optional bool
		want     string
		wantErr  string
	}{
		{name: "present", args: Args{"path": "a.go"}, want: "a.go"},
		{name: "empty string is a value", args: Args{"path": ""}, want: ""},
		{name: "missing", args: Args{}, wantErr: `argument "path" is required (a string)`},
		{name: "null", args: Args{"path": nil}, wantErr: `argument "path" is required (a string)`},
		{name: "nil args", args: nil, wantErr: `argument "path" is required (a string)`},
		{name: "a number", args: Args{"path": int64(12)}, wantErr: `argument "path" must be a string, got the number 12 (quote it)`},
		{name: "a float", args: Args{"path": 1.5}, wantErr: `got the number 1.5`},
		{name: "a bool", args: Args{"path": true}, wantErr: `got the boolean true`},
		{name: "a list", args: Args{"path": []any{"a"}}, wantErr: `got a list`},
		{name: "an object", args: Args{"path": map[string]any{}}, wantErr: `got an object`},
		{name: "optional missing", args: Args{}, optional: true, want: "."},
		{name: "optional null", args: Args{"path": nil}, optional: true, want: "."},
		{name: "optional present", args: Args{"path": "x"}, optional: true, want: "x"},
		{name: "optional wrong type", args: Args{"path": false}, optional: true, wantErr: `must be a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got string
			var err error
			if tt.optional {
				got, err = tt.args.OptionalString("path", ".")
			} else {
				got, err = tt.args.String("path")
			}
			if tt.wantErr != "" {
				var ae *ArgError
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, "path", ae.Arg)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestArgsOptionalInt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		value   any
		absent  bool
		want    int
		wantErr string
	}{
		{name: "absent", absent: true, want: 7},
		{name: "null", value: nil, want: 7},
		{name: "int64", value: int64(42), want: 42},
		{name: "negative", value: int64(-3), want: -3},
		{name: "integral float", value: float64(10), want: 10},
		{name: "fractional float", value: 1.5, wantErr: `argument "n" must be an integer, got the number 1.5`},
		{name: "huge float", value: 1e300, wantErr: "must be an integer"},
		{name: "decimal string", value: "12", want: 12},
		{name: "padded decimal string", value: " 12 ", want: 12},
		{name: "word", value: "twelve", wantErr: `must be an integer, got "twelve"`},
		{name: "toon number", value: toon.Number("1e3"), want: 1000},
		{name: "bool", value: true, wantErr: "must be an integer, got the boolean true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := Args{}
			if !tt.absent {
				args["n"] = tt.value
			}
			got, err := args.OptionalInt("n", 7)
			if tt.wantErr != "" {
				var ae *ArgError
				require.ErrorAs(t, err, &ae)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestArgErrorText(t *testing.T) {
	t.Parallel()
	e := &ArgError{Tool: "read_file", Arg: "path", Msg: "is required (a string)"}
	assert.Equal(t, `read_file: argument "path" is required (a string)`, e.Error())
	e.Tool = ""
	assert.Equal(t, `argument "path" is required (a string)`, e.Error())
}
