package runinfo_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/runinfo"
)

func TestDescribe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	params := filepath.Join(dir, "params.json")
	require.NoError(t, os.WriteFile(params, []byte(`{"lr": 0.01, "model": "als", "layers": [64]}`), 0o644))
	notObject := filepath.Join(dir, "list.json")
	require.NoError(t, os.WriteFile(notObject, []byte(`[1, 2]`), 0o644))
	tests := []struct {
		name    string
		src     runinfo.Sources
		params  map[string]any
		meta    map[string]any
		commit  string
		wantErr string
	}{
		{
			name:   "nothing given",
			src:    runinfo.Sources{GitCommit: "abc123"},
			params: map[string]any{}, meta: map[string]any{}, commit: "abc123",
		},
		{
			name: "a file, and pairs that win, parsed as JSON when they are",
			src: runinfo.Sources{
				ParamsFile: params, Params: []string{"lr=0.1", "name=popularity", "k=10", "opt={\"m\":1}"},
				Meta: []string{"note=nightly run", "fold=3"}, GitCommit: "abc123",
			},
			params: map[string]any{"lr": 0.1, "model": "als", "layers": []any{64.0}, "name": "popularity", "k": 10.0, "opt": map[string]any{"m": 1.0}},
			meta:   map[string]any{"note": "nightly run", "fold": 3.0},
			commit: "abc123",
		},
		{name: "a pair without =", src: runinfo.Sources{Params: []string{"lr"}}, wantErr: `param "lr": want KEY=VALUE`},
		{name: "a pair without a key", src: runinfo.Sources{Meta: []string{" =1"}}, wantErr: `meta " =1": want KEY=VALUE`},
		{name: "a file that is no object", src: runinfo.Sources{ParamsFile: notObject}, wantErr: "params file " + notObject + ": not a JSON object: "},
		{name: "a missing file", src: runinfo.Sources{ParamsFile: filepath.Join(dir, "absent.json")}, wantErr: "params file: open " + filepath.Join(dir, "absent.json")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev, err := tt.src.Describe()
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.params, ev.Params)
			require.Equal(t, tt.meta, ev.Metadata)
			require.Equal(t, tt.commit, ev.GitCommit)
		})
	}
}

func TestTags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		tags    []string
		want    map[string]string
		wantErr string
	}{
		{name: "none", tags: nil, want: map[string]string{}},
		{name: "bare tags are true", tags: []string{"nightly", "baseline"}, want: map[string]string{"nightly": "true", "baseline": "true"}},
		{
			name: "KEY=VALUE, split at the first =, values kept as written",
			tags: []string{"team=recsys", "url=a=b", "epochs=10", "empty="},
			want: map[string]string{"team": "recsys", "url": "a=b", "epochs": "10", "empty": ""},
		},
		{name: "a later tag of the key wins", tags: []string{"team=recsys", "team=search"}, want: map[string]string{"team": "search"}},
		{name: "no key", tags: []string{"=x"}, wantErr: `tag "=x": want KEY or KEY=VALUE`},
		{name: "a blank key", tags: []string{" "}, wantErr: `tag " ": want KEY or KEY=VALUE`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := runinfo.Tags(tt.tags)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			d, err := runinfo.Sources{Tags: tt.tags, GitCommit: "abc"}.Describe()
			require.NoError(t, err)
			require.Equal(t, tt.want, d.Tags)
		})
	}
}

func TestGitHead(t *testing.T) {
	t.Parallel()
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	require.NoError(t, err, "the tests run inside the repository")
	require.Equal(t, strings.TrimSpace(string(head)), runinfo.GitHead())
	ev, err := runinfo.Sources{}.Describe()
	require.NoError(t, err)
	require.Equal(t, strings.TrimSpace(string(head)), ev.GitCommit)
}
