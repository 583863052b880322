package dburl_test

import (
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/dburl"
)

// noPasswordFromEnv keeps pgx from taking a password from the environment or
// ~/.pgpass, so that a parsed Config's password is the connection string's.
func noPasswordFromEnv(t *testing.T) {
	t.Helper()
	t.Setenv("PGPASSWORD", "")
	t.Setenv("PGPASSFILE", "/nonexistent/verdict-test-pgpass")
	t.Setenv("PGSERVICEFILE", "/nonexistent/verdict-test-pg_service.conf")
}

func TestRedactNeverPrintsPassword(t *testing.T) {
	noPasswordFromEnv(t)
	tests := []struct {
		name    string
		in      string
		secrets []string // none of these may appear in the output
		want    string
	}{
		{
			name:    "URL",
			in:      "postgres://ann:s3cret@127.0.0.1:1/verdict?sslmode=disable&connect_timeout=2",
			secrets: []string{"s3cret"},
			want:    "postgres://ann:xxxxx@127.0.0.1:1/verdict?sslmode=disable&connect_timeout=2",
		},
		{
			name:    "postgresql scheme, several hosts, escaped password",
			in:      "postgresql://ann:p%40ss%2Fw0rd@h1:5432,h2:5433/verdict?target_session_attrs=read-write",
			secrets: []string{"p%40ss%2Fw0rd", "p@ss/w0rd"},
			want:    "postgresql://ann:xxxxx@h1:5432,h2:5433/verdict?target_session_attrs=read-write",
		},
		{
			name:    "IPv6 hosts",
			in:      "postgres://ann:s3cret@[::1]:5432,[fe80::1%25eth0]/verdict",
			secrets: []string{"s3cret"},
			want:    "postgres://ann:xxxxx@[::1]:5432,[fe80::1%25eth0]/verdict",
		},
		{
			name:    "a question mark in a password parameter is the password's",
			in:      "postgres://ann@h/verdict?password=s3?cr?et&sslmode=disable",
			secrets: []string{"s3", "cr?et"},
			want:    "postgres://ann@h/verdict?password=xxxxx&sslmode=disable",
		},
		{
			name:    "no user name",
			in:      "postgres://:s3cret@h/verdict",
			secrets: []string{"s3cret"},
			want:    "postgres://:xxxxx@h/verdict",
		},
		{
			name:    "scheme in capitals",
			in:      "POSTGRES://ann:s3cret@h/verdict",
			secrets: []string{"s3cret"},
			want:    "POSTGRES://ann:xxxxx@h/verdict",
		},
		{
			name:    "escaped socket folder as host",
			in:      "postgres://u:secret@%2Ftmp%2Fsock/db",
			secrets: []string{"secret"},
			want:    "postgres://u:xxxxx@%2Ftmp%2Fsock/db",
		},
		{
			name:    "# in the password",
			in:      "postgres://u:se#cret@h/db",
			secrets: []string{"se#cret"},
			want:    "postgres://u:xxxxx@h/db",
		},
		{
			name:    "space in the password",
			in:      "postgres://u:se cret@h/db",
			secrets: []string{"se cret", "cret"},
			want:    "postgres://u:xxxxx@h/db",
		},
		{
			name:    "unclosed IPv6 host",
			in:      "postgres://u:secret@[::1/db",
			secrets: []string{"secret"},
			want:    "postgres://u:xxxxx@[::1/db",
		},
		{
			name:    "unescaped @ in the password",
			in:      "postgres://u:Q@ssw0rd@h/db?application_name=ann@laptop",
			secrets: []string{"Q@ssw0rd", "Q", "ssw0rd"},
			want:    "postgres://u:xxxxx@h/db?application_name=ann@laptop",
		},
		{
			name:    "unescaped / in the password",
			in:      "postgres://u:pa/ssw0rd@h/db",
			secrets: []string{"pa/ssw0rd", "ssw0rd"},
			want:    "postgres://u:xxxxx@h/db",
		},
		{
			name:    "unescaped ? in the password",
			in:      "postgres://u:pa?ssw0rd@h/db",
			secrets: []string{"pa?ssw0rd", "ssw0rd"},
			want:    "postgres://u:xxxxx@h/db",
		},
		{
			name:    "unescaped @ and / in the password",
			in:      "postgres://u:Q@ss/w0rd@h/db",
			secrets: []string{"Q@ss/w0rd", "Q", "ss/w0rd", "w0rd"},
			want:    "postgres://u:xxxxx@h/db",
		},
		{
			name:    "password after an @ that ends the user name",
			in:      "postgres://u@h:sec:ret@h2/db",
			secrets: []string{"sec:ret"},
			want:    "postgres://u@h:xxxxx@h2/db",
		},
		{
			name:    "@ in a query value is not user info",
			in:      "postgres://h:5432/db?application_name=ann@laptop",
			secrets: nil,
			want:    "postgres://h:5432/db?application_name=ann@laptop",
		},
		{
			name:    "password in the query",
			in:      "postgres://u@h/db?sslmode=disable&password=s3cret&connect_timeout=2",
			secrets: []string{"s3cret"},
			want:    "postgres://u@h/db?sslmode=disable&password=xxxxx&connect_timeout=2",
		},
		{
			name:    "escaped password key in the query",
			in:      "postgres://u@h/db?pass%77ord=s3cret",
			secrets: []string{"s3cret"},
			want:    "postgres://u@h/db?pass%77ord=xxxxx",
		},
		{
			name:    "passwords in user info and query",
			in:      "postgres://u:first1@h/db?password=second2&sslpassword=third3",
			secrets: []string{"first1", "second2", "third3"},
			want:    "postgres://u:xxxxx@h/db?password=xxxxx&sslpassword=xxxxx",
		},
		{
			name:    "password in the query of a broken URL",
			in:      "postgres://h/d b?password=s3cret",
			secrets: []string{"s3cret"},
			want:    "postgres://h/d b?password=xxxxx",
		},
		{
			name: "embedded default",
			in:   "postgres:///verdict?host=/home/ann/.local/share/verdict/run&port=5432&user=verdict",
			want: "postgres:///verdict?host=/home/ann/.local/share/verdict/run&port=5432&user=verdict",
		},
		{
			name:    "keyword/value, quoted with a space",
			in:      "host=h password='a b' user=u",
			secrets: []string{"a b"},
			want:    "host=h password=xxxxx user=u",
		},
		{
			name:    "keyword/value, quoted with escapes",
			in:      `host=h password = 'it\'s s3cret' user=u`,
			secrets: []string{"s3cret", `it\'s`},
			want:    "host=h password = xxxxx user=u",
		},
		{
			name:    "keyword/value, escaped space",
			in:      `host=h password=s3\ cr3t user=u`,
			secrets: []string{"s3", "cr3t"},
			want:    "host=h password=xxxxx user=u",
		},
		{
			name:    "keyword/value, unquoted space",
			in:      "host=h password=s3 cret user=u",
			secrets: []string{"s3", "cret"},
			want:    "host=h password=xxxxx",
		},
		{
			name:    "keyword/value, unterminated quote",
			in:      "host=h password='s3cret user=u",
			secrets: []string{"s3cret"},
			want:    "host=h password=xxxxx",
		},
		{
			name:    "keyword/value, URL as dbname",
			in:      "dbname=postgres://u:s3cret@h/db sslmode=disable",
			secrets: []string{"s3cret"},
			want:    "dbname=postgres://u:xxxxx@h/db sslmode=disable",
		},
		{
			name:    "keyword/value, quoted URL as dbname",
			in:      "dbname='postgres://u:s3cret@h/db' sslmode=disable",
			secrets: []string{"s3cret"},
			want:    "dbname='postgres://u:xxxxx@h/db' sslmode=disable",
		},
		{
			name: "keyword/value without password",
			in:   "host=/tmp port=5432 dbname=verdict",
			want: "host=/tmp port=5432 dbname=verdict",
		},
		{name: "empty", in: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := dburl.Redact(tt.in)
			for _, s := range tt.secrets {
				require.NotContains(t, got, s)
			}
			require.Equal(t, tt.want, got)
			// Whatever password pgx reads from the input, Redact hides it.
			if cfg, err := pgconn.ParseConfig(tt.in); err == nil && cfg.Password != "" {
				require.NotContains(t, got, cfg.Password)
			}
		})
	}
}

func TestSplitPassword(t *testing.T) {
	noPasswordFromEnv(t)
	tests := []struct {
		name               string
		in                 string
		wantRest, wantPass string
	}{
		{
			name:     "user info",
			in:       "postgres://ann:s3cret@h:5433/verdict?sslmode=disable",
			wantRest: "postgres://ann@h:5433/verdict?sslmode=disable",
			wantPass: "s3cret",
		},
		{
			name:     "escaped user info, # in it",
			in:       "postgresql://ann:p%40ss%20w#rd@h/verdict",
			wantRest: "postgresql://ann@h/verdict",
			wantPass: "p@ss w#rd",
		},
		{
			name:     "query, first of several",
			in:       "postgres://ann@h/verdict?password=s3cret&sslmode=disable",
			wantRest: "postgres://ann@h/verdict?sslmode=disable",
			wantPass: "s3cret",
		},
		{
			name:     "query wins over user info",
			in:       "postgres://ann:first@h/verdict?password=second",
			wantRest: "postgres://ann@h/verdict",
			wantPass: "second",
		},
		{
			name:     "socket folder in the query",
			in:       "postgres://ann:s3cret@/verdict?host=/tmp/run&port=5432",
			wantRest: "postgres://ann@/verdict?host=/tmp/run&port=5432",
			wantPass: "s3cret",
		},
		{
			name:     "keyword/value",
			in:       `host=h password='it\'s s3cret' user=ann`,
			wantRest: "host=h user=ann",
			wantPass: "it's s3cret",
		},
		{
			name:     "keyword/value, password last",
			in:       "host=h user=ann password=s3cret",
			wantRest: "host=h user=ann",
			wantPass: "s3cret",
		},
		{
			name:     "no password",
			in:       "postgres:///verdict?host=/tmp/run&user=verdict",
			wantRest: "postgres:///verdict?host=/tmp/run&user=verdict",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rest, pass, err := dburl.SplitPassword(tt.in)
			require.NoError(t, err)
			require.Equal(t, tt.wantRest, rest)
			require.Equal(t, tt.wantPass, pass)

			// rest is the same connection, without a password.
			want, err := pgconn.ParseConfig(tt.in)
			require.NoError(t, err)
			got, err := pgconn.ParseConfig(rest)
			require.NoError(t, err)
			require.Empty(t, got.Password)
			require.Equal(t, []any{want.Host, want.Port, want.User, want.Database},
				[]any{got.Host, got.Port, got.User, got.Database})
		})
	}

}

func TestSplitPasswordErrorsNeverPrintPassword(t *testing.T) {
	noPasswordFromEnv(t)
	tests := []struct {
		in, want string
	}{
		{
			in:   "postgres://u:s3cret@h:port/db",
			want: "database URL postgres://u:xxxxx@h:port/db: not a valid PostgreSQL URL or connection string: invalid port",
		},
		{
			// pgx reads the host "ss word@h" and quotes it.
			in: "postgres://u:Q@ss word@h/db",
			want: `database URL postgres://u:xxxxx@h/db: not a valid PostgreSQL URL or connection string: ` +
				`unexpected spaces found in "…", use percent-encoded spaces (%20) instead`,
		},
		{
			in: "host=h password=s3 cr3t user=u",
			want: `database URL host=h password=xxxxx: not a valid PostgreSQL URL or connection string: ` +
				`missing "=" after "…" in connection info string`,
		},
		{
			in: "host=h port=x5432 user=u",
			want: `database URL host=h port=x5432 user=u: not a valid PostgreSQL URL or connection string: ` +
				`invalid port`,
		},
	}
	for _, tt := range tests {
		_, _, err := dburl.SplitPassword(tt.in)
		require.ErrorIs(t, err, dburl.ErrBadConnString)
		require.Equal(t, tt.want, err.Error())
	}
}

// FuzzRedact checks that pgx reads no password but the mask from what Redact
// returns, whenever it reads one from the input, and none from what
// SplitPassword leaves.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"postgres://u:secret@%2Ftmp%2Fsock/db",
		"postgres://u:se#cret@h/db",
		"postgres://u:secret@[::1]:5432,h2/db?password=x&sslmode=disable",
		"postgres://u@h:1/db?application_name=a@b",
		"host=h password='a b' user=u",
		`host=h password=a\ b dbname=postgres://u:p@h/db`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		t.Setenv("PGPASSWORD", "")
		t.Setenv("PGPASSFILE", "/nonexistent/verdict-test-pgpass")
		t.Setenv("PGSERVICEFILE", "/nonexistent/verdict-test-pg_service.conf")
		t.Setenv("PGSERVICE", "")
		in, err := pgconn.ParseConfig(s)
		if err != nil || in.Password == "" {
			return
		}
		got := dburl.Redact(s)
		if out, err := pgconn.ParseConfig(got); err == nil && out.Password != "" && out.Password != "xxxxx" {
			t.Fatalf("Redact(%q) = %q, in which pgx reads the password %q", s, got, out.Password)
		}
		rest, password, err := dburl.SplitPassword(s)
		if err != nil || password != in.Password {
			t.Fatalf("SplitPassword(%q) = %q, %q, %v; want the password %q", s, rest, password, err, in.Password)
		}
		if out, err := pgconn.ParseConfig(rest); err != nil || out.Password != "" {
			t.Fatalf("SplitPassword(%q) leaves %q, which pgx reads as %v, %v", s, rest, out, err)
		}
	})
}
