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

// BenchmarkDockerBoxTrue is a confined `true` in the Docker backend's box
// (one sibling container per run, its agent running each command) side by
// side with a `true` in a bwrap box and in a container of its own (NoBox,
// as every command ran before the Docker box), the three taking turns in
// each iteration so that a burst of load on a shared machine weighs on all
// of them: bench/box.sh prints the ratios. Target: the Docker box at most
// 3x the bwrap box. It needs bwrap, an engine and CORE_SANDBOX_IMAGE.
func BenchmarkDockerBoxTrue(b *testing.B) {
	image := os.Getenv("CORE_SANDBOX_IMAGE")
	if image == "" {
		b.Skip("CORE_SANDBOX_IMAGE is not set")
	}
	bw := New(Config{Home: b.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), Agent: os.Args[0]})
	defer bw.Close()
	if p := bw.Probe(b.Context()); !p.Usable {
		b.Skip(p.Err())
	}
	dk := New(Config{Home: b.TempDir(), Mode: ModeDocker, Path: os.Getenv("PATH"), DockerHost: os.Getenv("DOCKER_HOST"), DockerImage: image, Agent: os.Args[0]})
	defer dk.Close()
	if p := dk.Probe(b.Context()); !p.Usable {
		b.Skip(p.Err())
	}
	bws, dws := b.TempDir(), b.TempDir()
	bbox, err := bw.Box(b.Context(), bws)
	if err != nil {
		b.Fatal(err)
	}
	dbox, err := dk.Box(b.Context(), dws)
	if err != nil {
		b.Fatal(err)
	}
	runs := []func() (Result, error){
		func() (Result, error) { return bbox.Run(b.Context(), []string{"true"}, RunOptions{}) },
		func() (Result, error) { return dbox.Run(b.Context(), []string{"true"}, RunOptions{}) },
		func() (Result, error) {
			return dk.Run(b.Context(), []string{"true"}, RunOptions{Workspace: dws, NoBox: true})
		},
	}
	ms := takeTurns(b, runs)
	b.ReportMetric(ms[0], "bwrap-box-ms")
	b.ReportMetric(ms[1], "docker-box-ms")
	b.ReportMetric(ms[2], "container-ms")
	b.ReportMetric(ms[1]/ms[0], "docker/bwrap")
	b.ReportMetric(ms[2]/ms[1], "container/docker-box")
}
