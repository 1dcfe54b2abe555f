package ghfake

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// maxRequestBody bounds what the GitHub double reads of a request body, as
// the model double bounds its own.
const maxRequestBody = 32 << 20

// writeJSON answers with v as JSON and a trailing newline.
func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, fmt.Sprintf("testkit: marshal response: %v", err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}
