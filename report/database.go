package report

import (
	"fmt"
	"io"

	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/localpg"
)

// EmbeddedCluster writes the state of the embedded default cluster, as
// `verdict db status` shows it.
func EmbeddedCluster(w io.Writer, s localpg.Status) {
	fmt.Fprintf(w, "database:    embedded default in %s\n", s.Home)
	switch {
	case !s.Initialized:
		fmt.Fprintln(w, "state:       not created yet (it is created on first use)")
	case s.Running:
		fmt.Fprintf(w, "state:       running (PostgreSQL %s, pid %d)\n", s.Version, s.PID)
	default:
		fmt.Fprintf(w, "state:       stopped (PostgreSQL %s; started on next use)\n", s.Version)
	}
	if s.BinDir != "" {
		fmt.Fprintf(w, "binaries:    %s\n", s.BinDir)
	} else {
		fmt.Fprintln(w, "binaries:    none found (see 'verdict db start' for how to get them)")
	}
	fmt.Fprintf(w, "socket:      %s\n", s.SocketDir)
	fmt.Fprintf(w, "server log:  %s\n", s.LogFile)
}

// SchemaVersion says where a database's schema stands against the newest
// version this verdict knows.
func SchemaVersion(w io.Writer, current, known int64) {
	switch {
	case current > known:
		fmt.Fprintf(w, "schema:      version %d, newer than this verdict (%d): read-only\n", current, known)
	case current < known:
		fmt.Fprintf(w, "schema:      version %d of %d (migrated on next use)\n", current, known)
	default:
		fmt.Fprintf(w, "schema:      version %d (up to date)\n", current)
	}
}

// Migrations lists the migrations, each applied (with when) or pending, and
// what to do about the database's version.
func Migrations(w io.Writer, list []store.MigrationState, current, known int64) error {
	t := Table{Header: []string{"VERSION", "MIGRATION", "APPLIED"}, Right: map[int]bool{0: true}}
	for _, m := range list {
		applied := "pending"
		if m.Applied {
			applied = m.AppliedAt
		}
		t.Add(fmt.Sprint(m.Version), m.Name, applied)
	}
	if err := t.Write(w, "table"); err != nil {
		return err
	}
	switch {
	case current > known:
		fmt.Fprintf(w, "\ndatabase is at version %d, newer than this verdict (%d): upgrade verdict to write to it\n", current, known)
	case current < known:
		fmt.Fprintf(w, "\ndatabase is at version %d of %d: run 'verdict migrate'\n", current, known)
	default:
		fmt.Fprintf(w, "\ndatabase is up to date at version %d\n", current)
	}
	return nil
}

// Role says what `verdict db role create` did and what the role may do.
func Role(w io.Writer, r *store.RoleResult) {
	did := "created"
	if r.Updated {
		did = "granted again to"
	}
	may := "it can read verdict's tables and views, and nothing else"
	if r.Kind == store.Writer {
		may = "it can read, log evaluations and record comparisons, and cannot drop, alter, update or delete"
	}
	fmt.Fprintf(w, "%s role %s, a %s: %s.\n", did, Printable(r.Name), r.Kind, may)
	switch {
	case r.Password:
		fmt.Fprintln(w, "Its password is set, stored as a SCRAM-SHA-256 verifier.")
	case !r.Updated:
		fmt.Fprintln(w, "It has no password: it can connect only where the server trusts it, or set one with --password-stdin.")
	}
	fmt.Fprintf(w, "Connect as it with the same database URL and user %s.\n", Printable(r.Name))
}
