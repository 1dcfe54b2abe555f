package action

import (
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/coreagent/core/session"
)

// artifactsDir is where, in the workflow's workspace, the Action leaves a
// session's record, report and transcript for actions/upload-artifact: the
// job's workspace is the one directory of the container that the runner
// sees at the same relative path.
const artifactsDir = ".core-session"

// saveArtifacts copies the session's files into artifactsDir/<id> of the
// workflow's workspace, scrubbed once more of the token and the API key,
// and names the folder in the artifacts output. The workspace is the
// repository's checkout: everything goes through an os.Root, so a link
// planted there cannot send a write outside it. Failing to save is a
// warning, never the step's failure.
func (r *runner) saveArtifacts(id string) {
	ws := r.env.Getenv("GITHUB_WORKSPACE")
	if ws == "" || r.store == nil || id == "" {
		return
	}
	if err := r.copyArtifacts(ws, id); err != nil {
		r.a.Warningf("core: could not keep the session's files for upload: %v", err)
		return
	}
	r.a.SetOutput("artifacts", path.Join(artifactsDir, id))
}

func (r *runner) copyArtifacts(ws, id string) error {
	root, err := os.OpenRoot(ws)
	if err != nil {
		return err
	}
	defer root.Close()
	dir := path.Join(artifactsDir, id)
	if err := root.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	var pairs []string
	for _, s := range append([]string{r.in.GitHubToken}, r.secrets...) {
		if len(s) >= 4 {
			pairs = append(pairs, s, "[redacted]")
		}
	}
	scrub := strings.NewReplacer(pairs...)
	for _, name := range []string{session.RecordFile, session.ReportFile, session.TranscriptFile} {
		data, err := readCapped(path.Join(r.store.Dir(id), name), 256<<20)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		f, err := root.OpenFile(path.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		_, werr := io.WriteString(f, scrub.Replace(string(data)))
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return werr
		}
	}
	return nil
}

// readCapped reads a file of core's own, refusing one past limit bytes.
func readCapped(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", p, limit)
	}
	return data, nil
}
