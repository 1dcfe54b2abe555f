package checks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValidRunDefaults(t *testing.T) {
	t.Parallel()
	sha := strings.Repeat("A", 40)
	tests := []struct {
		name       string
		run        Run
		wantStatus string
		wantErr    string
	}{
		{name: "queued by default", run: Run{HeadSHA: sha, Name: "test"}, wantStatus: "queued"},
		{name: "completed by its conclusion", run: Run{HeadSHA: sha, Name: "test", Conclusion: "success"}, wantStatus: "completed"},
		{name: "a branch is no SHA", run: Run{HeadSHA: "main", Name: "test"}, wantErr: "not a full commit SHA"},
		{name: "no name", run: Run{HeadSHA: sha}, wantErr: "needs a name"},
		{name: "queued with a conclusion", run: Run{HeadSHA: sha, Name: "test", Status: "queued", Conclusion: "success"}, wantErr: "has no conclusion"},
		{name: "annotation without a message", run: Run{HeadSHA: sha, Name: "test", Annotations: []Annotation{{Path: "a.go", StartLine: 1, AnnotationLevel: "notice"}}}, wantErr: "needs a path, a start line and a message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := validRun(&tt.run)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.wantStatus, tt.run.Status)
			assert.Equal(t, strings.ToLower(sha), tt.run.HeadSHA)
		})
	}
}

func TestAddAndRuns(t *testing.T) {
	t.Parallel()
	var last int64
	s := New(Host{NextID: func() int64 { last++; return last }})
	hello := Repo{Dir: "/repos/octo/hello.git", HTMLURL: "https://github.example/octo/hello"}
	other := Repo{Dir: "/repos/octo/other.git", HTMLURL: "https://github.example/octo/other"}
	sha := strings.Repeat("a", 40)
	first, err := s.Add(hello, Run{HeadSHA: sha, Name: "test", Conclusion: "failure"})
	assert.NoError(t, err)
	_, err = s.Add(other, Run{HeadSHA: sha, Name: "lint"})
	assert.NoError(t, err)
	second, err := s.Add(hello, Run{HeadSHA: sha, Name: "build", HTMLURL: "https://ci.example/1"})
	assert.NoError(t, err)
	_, err = s.Add(hello, Run{HeadSHA: "main", Name: "bad"})
	assert.Error(t, err, "a run that breaks a rule is not added")

	runs := s.Runs(hello.Dir)
	if assert.Len(t, runs, 2, "hello's runs, oldest first, without other's") {
		assert.Equal(t, []int64{first, second}, []int64{runs[0].ID, runs[1].ID})
		assert.Equal(t, "completed", runs[0].Status)
		assert.False(t, runs[0].Completed.IsZero(), "a completed run has its time")
		assert.Equal(t, "https://github.example/octo/hello/runs/1", runs[0].HTMLURL)
		assert.Equal(t, "queued", runs[1].Status)
		assert.True(t, runs[1].Completed.IsZero(), "a queued run is not completed")
		assert.Equal(t, "https://ci.example/1", runs[1].HTMLURL, "a given page is kept")
	}
	assert.Empty(t, s.Runs("/repos/octo/none.git"))
}
