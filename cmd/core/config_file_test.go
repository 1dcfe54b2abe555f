package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, want, err string
	}{
		{name: "the key", text: "# mine\nconsole_url = \"https://core.example.com\"\n", want: "https://core.example.com"},
		{name: "a comment after", text: "console_url = \"http://127.0.0.1:9\"  # the lab\n", want: "http://127.0.0.1:9"},
		{name: "not quoted", text: "console_url = https://x\n", err: `config.toml:1: write key = "value"`},
		{name: "no equals", text: "\n\nconsole_url\n", err: "config.toml:3:"},
		{name: "unknown key", text: "consol_url = \"x\"\n", err: `unknown key "consol_url"`},
		{name: "a section", text: "[console]\n", err: "config.toml:1:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(tt.text), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := readConfig(home)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("readConfig(%q) error = %v, want one saying %q", tt.text, err, tt.err)
				}
				return
			}
			if err != nil || cfg["console_url"] != tt.want {
				t.Fatalf("readConfig(%q) = %v, %v; want console_url %q", tt.text, cfg, err, tt.want)
			}
		})
	}
	if cfg, err := readConfig(t.TempDir()); err != nil || cfg != nil {
		t.Errorf("no config.toml: %v, %v; want nothing and no error", cfg, err)
	}
}
