package deps

import (
	"slices"
	"strings"
)

// ResolveKey keys what plan resolves for the workspace seen at inside.
func ResolveKey(plan Plan, inside string) string {
	return FilesKey(map[string][]byte{"lineage": []byte(ResolveLineage(plan, inside)), "files": []byte(FilesKey(plan.Files))})
}

// ResolveLineage keys a run's resolutions of one ecosystem, whatever its
// manifest says: the last one seeds the next.
func ResolveLineage(plan Plan, inside string) string {
	return FilesKey(map[string][]byte{
		"eco": []byte(plan.Eco), "inside": []byte(inside),
		"argv": []byte(strings.Join(plan.Argv, "\x00")), "env": []byte(strings.Join(plan.Env, "\x00")),
		"hosts": []byte(strings.Join(plan.Hosts, "\x00")),
	})
}

// seeded is plan resolving from lock, what the run resolved last for
// another manifest: npm's and cargo's lockfile beside the manifest (cargo
// update --workspace then changes only what the manifest's change needs),
// pip's pins as constraints.
func Seeded(plan Plan, lock []byte) Plan {
	files := make(map[string][]byte, len(plan.Files)+1)
	for k, v := range plan.Files {
		files[k] = v
	}
	plan.Files = files
	switch plan.Eco {
	case "node":
		files["package-lock.json"] = lock
	case "rust":
		files["Cargo.lock"] = lock
		plan.Argv = []string{"cargo", "update", "--workspace"}
	case "python":
		files[constraintsFile] = lock
		plan.Argv = append(slices.Clone(plan.Argv), "-c", constraintsFile)
	}
	return plan
}
