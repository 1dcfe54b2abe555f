package tools

import (
	"context"
	"fmt"
	"io/fs"
	"os"
)

// regularFile is a workspace file read whole.
type regularFile struct {
	abs, rel string
	mode     fs.FileMode
	data     []byte
}

// readRegular resolves path inside the workspace and reads it as a regular
// file. When the model named something it cannot read (a refused path, a
// missing file, a directory, a device), ok is false and res, err are what
// the tool returns as they are: an observation, or an infrastructure error.
// missing and dir finish the sentences "%s does not exist" and "%s is a
// directory" with a hint of what to do instead.
func readRegular(ctx context.Context, env *Env, tool, path, missing, dir string) (f regularFile, ok bool, res Result, err error) {
	f.abs, f.rel, err = env.Workspace.Resolve(path)
	if err != nil {
		res, err = fail(tool, err)
		return f, false, res, err
	}
	if err := ctx.Err(); err != nil {
		return f, false, Result{}, err
	}
	fi, err := os.Stat(f.abs)
	switch {
	case os.IsNotExist(err):
		return f, false, Result{Output: fmt.Sprintf("%s: %s does not exist; %s", tool, f.rel, missing), Target: f.rel}, nil
	case err != nil:
		res, err = fsFail(tool, f.rel, "read", err)
		return f, false, res, err
	case fi.IsDir():
		return f, false, Result{Output: fmt.Sprintf("%s: %s is a directory; %s", tool, f.rel, dir), Target: f.rel}, nil
	case !fi.Mode().IsRegular():
		return f, false, Result{Output: fmt.Sprintf("%s: %s is not a regular file", tool, f.rel), Target: f.rel}, nil
	}
	f.mode = fi.Mode()
	if f.data, err = os.ReadFile(f.abs); err != nil {
		res, err = fsFail(tool, f.rel, "read", err)
		return f, false, res, err
	}
	return f, true, Result{}, nil
}
