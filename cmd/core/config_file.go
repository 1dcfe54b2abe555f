package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/coreagent/core/setup"
)

// configFile is $CORE_HOME/config.toml: the settings a person keeps for
// their machine. It holds top-level keys only, each a quoted string
// (console_url = "https://core.example.com"); # starts a comment.
const configFile = "config.toml"

// configKeys are the keys config.toml may hold.
var configKeys = map[string]bool{"console_url": true}

// readConfig reads config.toml under home; a missing file is no setting.
// A line that is not key = "value", or a key core does not know, is an
// error that names the line.
func readConfig(home string) (map[string]string, error) {
	path := filepath.Join(home, configFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if i := strings.LastIndex(value, `"`); i >= 0 && strings.HasPrefix(strings.TrimSpace(value[i+1:]), "#") {
			value = value[:i+1] // a comment after the value
		}
		s, err := strconv.Unquote(value)
		switch {
		case !ok || key == "" || err != nil || !strings.HasPrefix(value, `"`):
			return nil, fmt.Errorf("%s:%d: write key = \"value\" (a quoted string), got %q", path, n, line)
		case !configKeys[key]:
			return nil, fmt.Errorf("%s:%d: unknown key %q (core reads console_url)", path, n, key)
		}
		out[key] = s
	}
	return out, sc.Err()
}

// consoleURL is the console's address: the flag, else CORE_CONSOLE_URL,
// else console_url in $CORE_HOME/config.toml; "" when none is set.
func (e *env) consoleURL(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if u := e.getenv("CORE_CONSOLE_URL"); u != "" {
		return u, nil
	}
	home, err := setup.Home(e.getenv, "")
	if err != nil {
		return "", nil // no state directory: no config file either
	}
	cfg, err := readConfig(home)
	if err != nil {
		return "", err
	}
	return cfg["console_url"], nil
}
