package sandbox

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDockerImagesOfChecks: under the Docker backend a receipt's images
// are the toolchain image a Python check ran in and core's own image a Go
// check ran in, each named by the digest the engine reports.
func TestDockerImagesOfChecks(t *testing.T) {
	img := requireToolchainImage(t, "python")
	sb := requireDockerWith(t, Config{Home: t.TempDir(), ToolchainImages: map[string]string{"python": img}})
	t.Parallel()
	got := sb.Images(t.Context(), [][]string{{"python3", "-m", "pytest"}, {"go", "test", "./..."}})
	own := os.Getenv("CORE_SANDBOX_IMAGE")
	assert.Len(t, got, 2, "%v", got)
	for _, ref := range []string{img, own} {
		assert.Regexp(t, `^([^@]+@)?sha256:[0-9a-f]{64}$`, got[ref], "the digest of %s", ref)
	}
}

// TestImagesOutsideDocker: no backend but Docker's names images.
func TestImagesOutsideDocker(t *testing.T) {
	t.Parallel()
	sb := New(Config{Home: t.TempDir(), Mode: ModeOff})
	assert.Nil(t, sb.Images(t.Context(), [][]string{{"go", "test"}}))
}
