package archlint

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The footer of the architecture page that scripts/measures.sh --write
// prints (internal/measure), and the header of its table of packages.
const (
	measuresBegin  = "<!-- measures:begin -->"
	measuresEnd    = "<!-- measures:end -->"
	measuresTable  = "| package | non-test lines | non-test files |"
	measuresAdvice = "run scripts/measures.sh --write (make measures)"
)

// TestMeasuresFooter: the architecture page has the measures footer
// between its markers, and the footer's table of packages names exactly
// the module's packages, so a package moved or added without the script
// run again fails here. Not the figures: they change with every edit.
func TestMeasuresFooter(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	require.NoError(t, err)
	doc := string(b)
	require.Equal(t, 1, strings.Count(doc, measuresBegin), "docs/architecture.md needs one %s: %s", measuresBegin, measuresAdvice)
	require.Equal(t, 1, strings.Count(doc, measuresEnd), "docs/architecture.md needs one %s: %s", measuresEnd, measuresAdvice)
	begin, end := strings.Index(doc, measuresBegin), strings.Index(doc, measuresEnd)
	require.Less(t, begin, end, "docs/architecture.md: %s comes before %s: %s", measuresEnd, measuresBegin, measuresAdvice)

	documented := footerPackages(doc[begin:end])
	actual := slices.Sorted(maps.Keys(goList(t, root)))
	assert.Equal(t, actual, documented, "the packages in the measures footer of docs/architecture.md are not the module's: %s", measuresAdvice)
}

// footerPackages reads the first cell of each row of the footer's table
// of packages.
func footerPackages(footer string) []string {
	out := []string{}
	inTable := false
	for _, line := range strings.Split(footer, "\n") {
		switch {
		case strings.HasPrefix(line, measuresTable):
			inTable = true
		case !inTable || strings.HasPrefix(line, "|---"):
		case !strings.HasPrefix(line, "|"):
			return out
		default:
			if m := cell.FindStringSubmatch(strings.Split(line, "|")[1]); m != nil {
				out = append(out, m[1])
			}
		}
	}
	return out
}
