package sandbox

import (
	"os"
	"testing"
)

// BenchmarkDockerTrue is the Docker backend's cost per command: a `true` in
// a fresh sibling container (create, attach, start, wait, remove). It needs
// an engine and CORE_SANDBOX_IMAGE.
func BenchmarkDockerTrue(b *testing.B) {
	image := os.Getenv("CORE_SANDBOX_IMAGE")
	if image == "" {
		b.Skip("CORE_SANDBOX_IMAGE is not set")
	}
	sb := New(Config{Home: b.TempDir(), Mode: ModeDocker, Path: os.Getenv("PATH"), DockerHost: os.Getenv("DOCKER_HOST"), DockerImage: image})
	if p := sb.Probe(b.Context()); !p.Usable {
		b.Skip(p.Err())
	}
	opts := RunOptions{Workspace: b.TempDir()}
	for b.Loop() {
		r, err := sb.Run(b.Context(), []string{"true"}, opts)
		if err != nil || r.ExitCode != 0 {
			b.Fatal(err, r.Output)
		}
	}
}
