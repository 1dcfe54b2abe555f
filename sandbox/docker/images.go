package docker

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/image"
	"github.com/moby/moby/client"

	"github.com/coreagent/core/sandbox/lang"
)

// Under the Docker backend a command runs in its ecosystem's toolchain
// image (Config.ToolchainImages), or in core's own image (Go, and an
// ecosystem without one). An image is pulled the first time a command
// needs it, so a Go repository pulls nothing but core, and a Python one
// only the Python image: start-up stays as fast as core's own image.

// DefaultToolchainImages are the toolchain images of the Action: the
// official images of each language, pulled only when a repository is in
// that language.
func DefaultToolchainImages() map[string]string {
	return map[string]string{
		"python": "python:3.13-slim",
		"node":   "node:22-slim",
		"rust":   "rust:1-slim",
	}
}

// ParseToolchainImages reads CORE_SANDBOX_TOOLCHAIN_IMAGES (the Action's
// toolchain_images input): ecosystem=image pairs separated by spaces,
// commas or new lines, over the defaults; image "none" runs the
// ecosystem's commands in core's own image.
func ParseToolchainImages(s string) (map[string]string, error) {
	out := DefaultToolchainImages()
	known := DefaultToolchainImages()
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }) {
		eco, img, ok := strings.Cut(f, "=")
		if _, isKnown := known[eco]; !ok || img == "" || !isKnown {
			return nil, fmt.Errorf("toolchain images are ecosystem=image pairs, the ecosystem python, node or rust (e.g. python=python:3.13-slim), got %q", f)
		}
		if img == "none" {
			img = ""
		}
		out[eco] = img
	}
	return out, nil
}

// Image is what core knows of a sibling image.
type Image struct {
	Ref  string
	Path []string // PATH inside
	Env  []string // the image's other variables (RUSTUP_HOME, ...)
	// has are the programs found on its PATH, of those its ecosystem
	// needs (toolchainPrograms); nil until asked.
	has map[string]bool
}

// ImageFor returns the image a command of tool runs in, inspected (and
// pulled, the first time, when the engine has not got it).
func (d *Backend) ImageFor(ctx context.Context, tool string) (*Image, error) {
	ref := d.refFor(tool)
	if ref == d.image {
		return &Image{Ref: d.image, Path: d.path}, nil
	}
	d.imu.Lock()
	defer d.imu.Unlock()
	if img, ok := d.images[ref]; ok {
		return img, nil
	}
	got, err := d.cli.ImageInspect(ctx, ref)
	if cerrdefs.IsNotFound(err) {
		if err := d.pull(ctx, ref); err != nil {
			return nil, err
		}
		got, err = d.cli.ImageInspect(ctx, ref)
	}
	if err != nil {
		return nil, fmt.Errorf("inspect the toolchain image %s: %w", ref, err)
	}
	img := &Image{Ref: ref, Path: []string{"/usr/local/bin", "/usr/bin", "/bin"}}
	if got.Config != nil {
		for _, kv := range got.Config.Env {
			if v, ok := strings.CutPrefix(kv, "PATH="); ok {
				img.Path = filepath.SplitList(v)
			} else {
				img.Env = append(img.Env, kv)
			}
		}
	}
	if d.images == nil {
		d.images = map[string]*Image{}
	}
	d.images[ref] = img
	return img, nil
}

// refFor is the image a command of tool runs in: its ecosystem's
// toolchain image, or core's own.
func (d *Backend) refFor(tool string) string {
	if e, ok := lang.EcosystemOf(tool); ok && d.st.ToolchainImages[e.Name] != "" {
		return d.st.ToolchainImages[e.Name]
	}
	return d.image
}

// Digests are the digests of the images the commands argvs ran in (image
// → digest), core's own image's included: the repository digest the
// engine reports (name@sha256:..., the same on every machine that pulled
// it), or the image's ID when it came from no registry. Nothing is pulled:
// an image the engine has not got is left out.
func (d *Backend) Digests(ctx context.Context, argvs [][]string) map[string]string {
	out := map[string]string{}
	for _, argv := range argvs {
		if len(argv) == 0 || d.cli == nil {
			continue
		}
		ref := d.refFor(argv[0])
		if _, done := out[ref]; done || ref == "" {
			continue
		}
		if got, err := d.cli.ImageInspect(ctx, ref); err == nil {
			out[ref] = digestOf(got.InspectResponse)
		}
	}
	return out
}

// digestOf is an inspected image's digest: its first repository digest,
// else its ID.
func digestOf(img image.InspectResponse) string {
	if len(img.RepoDigests) > 0 {
		return img.RepoDigests[0]
	}
	return img.ID
}

// pull fetches an image the engine has not got.
func (d *Backend) pull(ctx context.Context, ref string) error {
	resp, err := d.cli.ImagePull(ctx, ref, client.ImagePullOptions{})
	if err != nil {
		return fmt.Errorf("pull the toolchain image %s: %w", ref, err)
	}
	defer resp.Close()
	if err := resp.Wait(ctx); err != nil {
		return fmt.Errorf("pull the toolchain image %s: %w", ref, err)
	}
	return nil
}

// Has reports which of programs (e's, toolchainPrograms) the image of e's
// commands has: a sibling without the network, its environment env of the
// image's PATH, looks for each on its PATH, once per image, within
// timeout.
func (d *Backend) Has(ctx context.Context, e lang.Ecosystem, programs []string, env func(path []string) []string, timeout time.Duration) (string, map[string]bool, error) {
	img, err := d.ImageFor(ctx, e.Tools[0])
	if err != nil {
		return "", nil, err
	}
	d.imu.Lock()
	has := img.has
	d.imu.Unlock()
	if has != nil {
		return img.Ref, has, nil
	}
	// Core's own script; the names are the table's, not the workspace's.
	script := "for t in " + strings.Join(programs, " ") + "; do command -v \"$t\" >/dev/null && echo \"$t\"; done; true"
	create := d.Config(img, Sibling{Argv: []string{"sh", "-c", script}, Dir: "/tmp", Env: env(img.Path)})
	r, err := d.Start(ctx, create, Bounds{Timeout: timeout, OutputLimit: 4 << 10})
	if err != nil {
		return "", nil, fmt.Errorf("look for %s in the toolchain image %s: %w", strings.Join(programs, ", "), img.Ref, err)
	}
	has = map[string]bool{}
	for _, line := range strings.Fields(r.Output) {
		has[line] = true
	}
	d.imu.Lock()
	img.has = has
	d.imu.Unlock()
	return img.Ref, has, nil
}
