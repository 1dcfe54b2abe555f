// The MCP test server over stdio: mcpfake's tools on standard input and
// output.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/coreagent/core/internal/testkit/mcpfake"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if err := mcpfake.NewServer().Run(context.Background(), &mcp.StdioTransport{MaxLineLength: -1}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
