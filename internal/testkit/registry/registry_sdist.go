package registry

import (
	"crypto/sha256"
	"fmt"
	"strings"
)

// AddSdist publishes a source distribution of the package, listed on its
// PEP 503 page beside any wheels, whose build runs backend: its
// pyproject.toml names no build requirements and an in-tree backend
// (backend-path = ["."]), so pip imports backend.py without fetching
// anything first. It returns the sdist's URL (for a direct reference).
// A test makes backend phone home (PhoneHome) to see whether pip built it.
func (r *Registry) AddSdist(name, version, backend string) string {
	dist := strings.ReplaceAll(name, "-", "_")
	base := dist + "-" + version
	tgz := tarGz(base+"/", map[string]string{
		"PKG-INFO":       fmt.Sprintf("Metadata-Version: 2.1\nName: %s\nVersion: %s\n", name, version),
		"pyproject.toml": "[build-system]\nrequires = []\nbuild-backend = \"backend\"\nbackend-path = [\".\"]\n",
		"backend.py":     backend,
	})
	file := base + ".tar.gz"
	sum := sha256.Sum256(tgz)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.put("/files/"+file, "application/octet-stream", tgz)
	r.list(name, file, sum[:])
	return r.URL + "/files/" + file
}

// PhoneHome is Python that, run anywhere, connects to the tripwire at
// addr, says it ran and waits for the answer, so the tripwire has counted
// it before the code goes on; it keeps quiet when it cannot connect.
func PhoneHome(addr, what string) string {
	host, port, _ := strings.Cut(addr, ":")
	return fmt.Sprintf(`import socket
try:
    _s = socket.create_connection((%q, %s), timeout=60)
    _s.sendall(%q.encode() + b"\n")
    _s.recv(16)
    _s.close()
except OSError:
    pass
`, host, port, what)
}
