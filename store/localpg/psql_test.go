//go:build unix

package localpg

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A shell stands in for psql in these tests, to show what psql is given.
// cmd/verdict's TestDBPsqlKeepsPasswordOutOfArgs runs the real psql.

func TestRunPsqlPasswordFile(t *testing.T) {
	t.Setenv("PGPASSWORD", "from-the-caller")
	tests := []struct {
		name, password, wantFile, wantPGPASSWORD string
	}{
		{name: "plain", password: "s3cret", wantFile: "*:*:*:*:s3cret"},
		{name: "escaped", password: `a:b\c d`, wantFile: `*:*:*:*:a\:b\\c d`},
		{name: "line break", password: "a\nb", wantPGPASSWORD: "a\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := `echo "file=$PGPASSFILE"; [ -n "$PGPASSFILE" ] && ls -l "$PGPASSFILE" | cut -c1-10 && cat "$PGPASSFILE"; printf 'PGPASSWORD=%s\n' "$PGPASSWORD"`
			var stdout, stderr bytes.Buffer
			code, err := RunPsql("/bin/sh", []string{"-c", script}, tt.password, nil, &stdout, &stderr)
			require.NoError(t, err)
			require.Equal(t, 0, code, stderr.String())
			first, rest, _ := strings.Cut(stdout.String(), "\n")
			file := strings.TrimPrefix(first, "file=")
			if tt.wantFile == "" {
				require.Empty(t, file)
				require.Equal(t, "PGPASSWORD="+tt.wantPGPASSWORD+"\n", rest)
				return
			}
			require.Equal(t, "-rw-------\n"+tt.wantFile+"\nPGPASSWORD=\n", rest)
			require.NoFileExists(t, file, "removed when psql exits")
		})
	}

	t.Run("no password", func(t *testing.T) {
		t.Setenv("PGPASSFILE", "/home/ann/.pgpass")
		var stdout bytes.Buffer
		code, err := RunPsql("/bin/sh", []string{"-c", `echo "$PGPASSFILE $PGPASSWORD"`}, "", nil, &stdout, os.Stderr)
		require.NoError(t, err)
		require.Equal(t, 0, code)
		require.Equal(t, "/home/ann/.pgpass from-the-caller\n", stdout.String(), "the caller's environment")
	})
}

func TestRunPsqlSignals(t *testing.T) {
	tests := []struct {
		name, script string
		wantCode     int
		wantOut      string
	}{
		{
			// The terminal sends Ctrl-C to psql too; verdict lives on.
			name:     "SIGINT is psql's",
			script:   `trap 'echo INT; exit 3' INT; kill -INT $PPID; sleep 0.3; echo done`,
			wantCode: 0, wantOut: "done\n",
		},
		{
			name:     "SIGTERM is passed on",
			script:   `trap 'echo TERM; exit 7' TERM; kill -TERM $PPID; i=0; while [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; echo missed`,
			wantCode: 7, wantOut: "TERM\n",
		},
		{
			name:     "killed by a signal",
			script:   `kill -KILL $$`,
			wantCode: 128 + 9,
		},
		{name: "exit status", script: `exit 2`, wantCode: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout bytes.Buffer
			code, err := RunPsql("/bin/sh", []string{"-c", tt.script}, "", nil, &stdout, os.Stderr)
			require.NoError(t, err)
			require.Equal(t, tt.wantCode, code)
			require.Equal(t, tt.wantOut, stdout.String())
		})
	}

	_, err := RunPsql("/nonexistent/psql", nil, "", nil, nil, nil)
	require.ErrorContains(t, err, "localpg: starting /nonexistent/psql")
}
