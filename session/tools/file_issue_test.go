package tools

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type recordingFiler struct {
	titles, bodies []string
	err            error
}

func (f *recordingFiler) FileIssue(_ context.Context, title, body string) (string, error) {
	f.titles = append(f.titles, title)
	f.bodies = append(f.bodies, body)
	return "https://github.example/o/r/issues/7", f.err
}

type answer struct {
	ok    bool
	asked []string
}

func (a *answer) Approve(_ context.Context, action string) (bool, error) {
	a.asked = append(a.asked, action)
	return a.ok, nil
}

func TestFileIssue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      Args
		filer     bool
		approve   bool
		filerErr  error
		want      string
		wantFiled bool
		wantAsked bool
	}{
		{name: "approved", args: Args{"title": "bug", "body": "details"}, filer: true, approve: true, want: "filed https://github.example/o/r/issues/7", wantFiled: true, wantAsked: true},
		{name: "declined", args: Args{"title": "bug"}, filer: true, want: DeclinedIssue, wantAsked: true},
		{name: "not on GitHub", args: Args{"title": "bug"}, approve: true, want: "not on GitHub"},
		{name: "no title", args: Args{"body": "x"}, filer: true, approve: true, want: `argument "title" is required`},
		{name: "blank title", args: Args{"title": "  "}, filer: true, approve: true, want: "must not be empty"},
		{name: "github refuses", args: Args{"title": "bug"}, filer: true, approve: true, filerErr: errors.New("403 Resource not accessible"), want: "file_issue failed: 403", wantFiled: true, wantAsked: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &recordingFiler{err: tt.filerErr}
			a := &answer{ok: tt.approve}
			env := &Env{Approver: a}
			if tt.filer {
				env.Issues = f
			}
			res, err := fileIssue{}.Run(t.Context(), env, tt.args)
			require.NoError(t, err)
			assert.Contains(t, res.Output, tt.want)
			assert.Equal(t, tt.wantFiled, len(f.titles) == 1)
			assert.Equal(t, tt.wantAsked, len(a.asked) == 1)
			if tt.wantAsked {
				assert.Contains(t, a.asked[0], "file_issue: bug")
			}
		})
	}
}
