// Command core is an autonomous coding agent for GitHub.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/coreagent/core/session/scrub"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sig := watchSignals(cancel)
	err := runWith(ctx, sig, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	sig.stop()
	cancel()
	if err != nil {
		var ec exitCode
		if errors.As(err, &ec) {
			os.Exit(int(ec))
		}
		fmt.Fprintln(os.Stderr, "core:", scrub.Terminal(err.Error()))
		os.Exit(1)
	}
}
