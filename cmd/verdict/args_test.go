package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/flagorder"
	"github.com/verdict-ml/verdict/store/storetest"
)

// TestFlagsFirst checks the reordering itself, command by command: flags
// and their values move before the positional arguments, boolean flags
// take no value, "--" ends the flags, and stray words stay where they are.
func TestFlagsFirst(t *testing.T) {
	t.Parallel()
	app := newApp(io.Discard, io.Discard)
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"compare", "compare main pr-1 --metric ndcg@20 -e exp", "compare --metric ndcg@20 -e exp main pr-1"},
		{"compare with a boolean", "compare main --no-record pr-1 --format=json", "compare --no-record --format=json main pr-1"},
		{"diff", "diff a b --worst 3 -m ndcg", "diff --worst 3 -m ndcg a b"},
		{"rank", "rank a b c --metric m --plot cd.svg", "rank --metric m --plot cd.svg a b c"},
		{"log", "log scores.csv -e x -r y -s z --tag nightly", "log -e x -r y -s z --tag nightly scores.csv"},
		{"fingerprint", "fingerprint t.npz --sample-ids ids.npy", "fingerprint --sample-ids ids.npy t.npz"},
		{"show comparison", "show comparison 3 --format json", "show comparison --format json 3"},
		{"global flag kept", "--database-url u compare a b --metric m", "--database-url u compare --metric m a b"},
		{"psql arguments after --", "db psql -- -c 'select 1'", "db psql -- -c 'select 1'"},
		{"a stray word stays", "leaderboard -e x stray --metric m", "leaderboard -e x --metric m stray"},
		{"a negative number is no flag", "compare a -1 --metric m", "compare --metric m a -1"},
		{"no command", "--help", "--help"},
		{"flags first already", "compare --metric m a b", "compare --metric m a b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := flagorder.FlagsFirst(app, append([]string{"verdict"}, strings.Fields(tc.in)...))
			require.Equal(t, append([]string{"verdict"}, strings.Fields(tc.want)...), got)
		})
	}
}

// TestFlagsAfterArguments runs every command that takes positional
// arguments with its flags after them, and checks that the output is the
// flags-first form's.
func TestFlagsAfterArguments(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	logGoldenDataset(t, url)
	res := runVerdict(t, url, "compare", "-e", "golden", "baseline", "item-knn")
	require.Equal(t, 0, res.code, res.stderr)
	scores := filepath.Join(t.TempDir(), "scores.csv")
	require.NoError(t, writeFileErr(scores, "sample_id,m\nu1,0.5\nu2,0.25\n"))
	targets := filepath.Join(t.TempDir(), "targets.csv")
	require.NoError(t, writeFileErr(targets, "sample_id,item\nu1,a\nu2,b\n"))
	for _, c := range []struct {
		name         string
		cmd          []string
		flags, args  []string
		sameEachTime bool
	}{
		{"compare", []string{"compare"}, []string{"-e", "golden", "--metric", "ndcg@10", "--no-record", "--format", "json"}, []string{"baseline", "item-knn"}, true},
		{"diff", []string{"diff"}, []string{"-e", "golden", "--metric", "recall@20", "--best", "3"}, []string{"popularity", "mf-64"}, true},
		{"rank", []string{"rank"}, []string{"-e", "golden", "--metric", "ndcg@10", "--no-record"}, []string{"baseline", "item-knn", "mf-64"}, true},
		{"show comparison", []string{"show", "comparison"}, []string{"--format", "json"}, []string{"1"}, true},
		{"fingerprint", []string{"fingerprint"}, []string{"--format", "json"}, []string{targets}, true},
		{"log", []string{"log"}, []string{"-e", "flags", "-r", "after", "-s", "test", "--format", "json"}, []string{scores}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			first := runVerdict(t, url, append(append(append([]string{}, c.cmd...), c.flags...), c.args...)...)
			require.Equal(t, 0, first.code, first.stderr)
			after := runVerdict(t, url, append(append(append([]string{}, c.cmd...), c.args...), c.flags...)...)
			require.Equal(t, 0, after.code, after.stderr)
			if c.sameEachTime {
				require.Equal(t, normalise(first.stdout), normalise(after.stdout))
			} else {
				require.Contains(t, after.stdout, `"existing": true`, "the same log again, flags after the file")
			}
		})
	}

	// Stray words are still refused, wherever the flags are.
	res = runVerdict(t, url, "leaderboard", "-e", "golden", "stray", "--metric", "ndcg@10")
	require.Equal(t, exitError, res.code)
	require.Contains(t, res.stderr, `unexpected argument "stray"`)
	res = runVerdict(t, url, "compare", "baseline", "item-knn", "extra", "-e", "golden")
	require.Equal(t, exitError, res.code)
	require.Contains(t, res.stderr, "compare takes BASELINE and CANDIDATE, got 3 arguments")
}
