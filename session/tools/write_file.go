package tools

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
)

type writeFile struct{}

func (writeFile) Name() string { return "write_file" }

func (writeFile) Doc() string {
	return `write_file: create a file, or replace a file's whole content.
  tool: write_file
  path: internal/greet/greet.go
  content: "package greet\n\nfunc Hello() string { return \"hello\" }\n"
Missing parent directories are created. To change part of an existing file,
edit_file is shorter and safer.`
}

func (t writeFile) Run(ctx context.Context, env *Env, args Args) (Result, error) {
	path, err := args.String("path")
	if err != nil {
		return fail(t.Name(), err)
	}
	content, err := args.String("content")
	if err != nil {
		return fail(t.Name(), err)
	}
	abs, rel, err := env.Workspace.Resolve(path)
	if err != nil {
		return fail(t.Name(), err)
	}
	why, err := env.workflowRefusal(ctx, t.Name(), abs, rel)
	if err != nil {
		return Result{}, err
	}
	if why != "" {
		return Result{Output: why, Target: rel}, nil
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	verb := "created"
	fi, err := os.Stat(abs)
	switch {
	case err == nil && fi.IsDir():
		return Result{Output: fmt.Sprintf("write_file: %s is a directory; name a file inside it", rel), Target: rel}, nil
	case err == nil && !fi.Mode().IsRegular():
		return Result{Output: fmt.Sprintf("write_file: %s is not a regular file", rel), Target: rel}, nil
	case err == nil:
		old, err := os.ReadFile(abs)
		if err != nil {
			return fsFail(t.Name(), rel, "read", err)
		}
		if bytes.Equal(old, []byte(content)) {
			return Result{Output: fmt.Sprintf("%s already has this content; nothing changed", rel), Target: rel}, nil
		}
		verb = "wrote"
	case !os.IsNotExist(err):
		return fsFail(t.Name(), rel, "write", err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return fsFail(t.Name(), rel, "create the directory for", err)
	}
	// os.WriteFile truncates an existing file in place, so it keeps its
	// mode; a new file gets 0644 (less the umask).
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		return fsFail(t.Name(), rel, "write", err)
	}
	return Result{
		Output: fmt.Sprintf("%s %s (%d bytes, %d lines)", verb, rel, len(content), countLines(content)),
		Target: rel,
	}, nil
}

// countLines counts lines as an editor shows them: a last line without a
// newline counts.
func countLines(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			n++
		}
	}
	if len(s) > 0 && s[len(s)-1] != '\n' {
		n++
	}
	return n
}
