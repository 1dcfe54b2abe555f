package model_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/model"
)

func TestCompletePersistentFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		reply      llm.Reply
		wantStatus int
		wantMsg    string
	}{
		{name: "400", reply: llm.ErrorReply(400, "context too long"), wantStatus: 400,
			wantMsg: "400 Bad Request after 1 attempt: context too long"},
		{name: "401", reply: llm.ErrorReply(401, "invalid api key"), wantStatus: 401,
			wantMsg: "401 Unauthorized after 1 attempt: invalid api key (check the API key)"},
		{name: "404 model not found", reply: llm.ErrorReply(404, `model "qwen2.5-coder-7b" not found`), wantStatus: 404,
			wantMsg: `404 Not Found after 1 attempt: model "qwen2.5-coder-7b" not found (check the model name`},
		{name: "501", reply: llm.ErrorReply(501, "chat not supported"), wantStatus: 501,
			wantMsg: "501 Not Implemented after 1 attempt: chat not supported"},
		{name: "answer is not JSON", reply: llm.RawReply(200, "<html>welcome to the web UI</html>"),
			wantMsg: "request failed after 1 attempt: invalid character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := llm.NewModelServer(t, tt.reply, llm.ContentReply("never served"))
			_, err := newClient(s, nil).Complete(t.Context(), conversation())
			me := asModelError(t, err)
			if me.Kind != model.KindPersistent || me.Status != tt.wantStatus || me.Attempts != 1 {
				t.Errorf("error kind %v status %d attempts %d, want persistent %d 1", me.Kind, me.Status, me.Attempts, tt.wantStatus)
			}
			wantPrefix := "model endpoint " + s.URL + "/v1: " + tt.wantMsg
			if !strings.HasPrefix(err.Error(), wantPrefix) {
				t.Errorf("error = %q\nwant prefix %q", err, wantPrefix)
			}
			if n := len(s.Requests()); n != 1 {
				t.Errorf("server got %d requests, want 1 (no retry)", n)
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	const ep = "http://127.0.0.1:8081/v1"
	tests := []struct {
		name string
		err  *model.Error
		want string
	}{
		{name: "transient with status", err: &model.Error{Kind: model.KindTransient, Endpoint: ep, Status: 503, Attempts: 5, Err: errors.New("loading")},
			want: "model endpoint http://127.0.0.1:8081/v1: 503 Service Unavailable after 5 attempts: loading"},
		{name: "transient without status", err: &model.Error{Kind: model.KindTransient, Endpoint: ep, Attempts: 2, Err: errors.New("connection refused")},
			want: "model endpoint http://127.0.0.1:8081/v1: transient failure after 2 attempts: connection refused"},
		{name: "persistent 404", err: &model.Error{Kind: model.KindPersistent, Endpoint: ep, Status: 404, Attempts: 1, Err: errors.New("no model x")},
			want: "model endpoint http://127.0.0.1:8081/v1: 404 Not Found after 1 attempt: no model x (check the model name and that the URL is an OpenAI-compatible server's base)"},
		{name: "canceled", err: &model.Error{Kind: model.KindCanceled, Endpoint: ep, Attempts: 1, Err: context.Canceled},
			want: "model endpoint http://127.0.0.1:8081/v1: stopped after 1 attempt: context canceled"},
		{name: "empty", err: &model.Error{Kind: model.KindEmpty, Endpoint: ep, Attempts: 1, Err: errors.New("nothing")},
			want: "model endpoint http://127.0.0.1:8081/v1: empty reply after 1 attempt: nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q\nwant      %q", got, tt.want)
			}
		})
	}
}
