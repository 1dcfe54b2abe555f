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
func (r *runner) saveArtifacts(id string, files []string) {
	ws := r.env.Getenv("GITHUB_WORKSPACE")
	if ws == "" || r.store == nil || id == "" {
		return
	}
	if err := r.copyArtifacts(ws, id, files...); err != nil {
		r.a.Warningf("core: could not keep the session's files for upload: %v", err)
		return
	}
	r.a.SetOutput("artifacts", path.Join(artifactsDir, id))
}

// files are the run's other files (report.Files: the browser's
// screenshots and console log), paths in the session's directory, read
// through an os.Root there too; a PNG is copied as it is, text scrubbed.
func (r *runner) copyArtifacts(ws, id string, files ...string) error {
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
	src, err := os.OpenRoot(r.store.Dir(id))
	if err != nil {
		return err
	}
	defer src.Close()
	for _, name := range append([]string{session.RecordFile, session.ReportFile, session.TranscriptFile, session.ReceiptFile}, files...) {
		data, err := readCapped(src, name, 256<<20)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		if d := path.Dir(name); d != "." {
			if err := root.MkdirAll(path.Join(dir, d), 0o700); err != nil {
				return err
			}
		}
		f, err := root.OpenFile(path.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		text := string(data)
		if path.Ext(name) != ".png" {
			text = scrub.Replace(text)
		}
		_, werr := io.WriteString(f, text)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return werr
		}
	}
	return nil
}

// readCapped reads a file of core's own in root, refusing one past limit
// bytes.
func readCapped(root *os.Root, p string, limit int64) ([]byte, error) {
	f, err := root.Open(p)
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
