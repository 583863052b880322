package store

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/verdict-ml/verdict/internal/dburl"
	"github.com/verdict-ml/verdict/migrations"
)

// Store is a connection pool on a migrated verdict database. It is safe for
// concurrent use.
type Store struct {
	pool *pgxpool.Pool
	url  string // redacted, for messages

	// schemaErr is non-nil when the database schema is newer than this binary;
	// every write returns it.
	schemaErr error

	// background is the clean-up Open may start; Close waits for it.
	background sync.WaitGroup
}

// Options tune Open.
type Options struct {
	// NoMigrate leaves the schema as it is: Open neither applies pending
	// migrations nor complains about them. `verdict migrate status` uses it.
	NoMigrate bool
}

// Open connects to the database at url and applies pending migrations. A
// schema newer than this binary does not fail Open: the Store opens read-only
// and its writes return a *SchemaVersionError.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, dburl.ConnStringError(url, err)
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = "verdict"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", dburl.Redact(url), err)
	}
	s := &Store{pool: pool, url: dburl.Redact(url)}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to %s: %w", s.url, err)
	}
	if !opts.NoMigrate {
		if err := s.autoMigrate(ctx); err != nil {
			pool.Close()
			return nil, err
		}
		if s.schemaErr == nil {
			// What a killed log over several connections left goes now,
			// whatever the command.
			s.collectOrphansInBackground(ctx)
		}
	}
	return s, nil
}

// Close waits for the clean-up Open started, if any, and releases the pool.
func (s *Store) Close() {
	s.background.Wait()
	s.pool.Close()
}

// URL is the database URL with any password redacted.
func (s *Store) URL() string { return s.url }

// writable returns the error every write must return, if any.
func (s *Store) writable() error { return s.schemaErr }

// Version is the verdict module version recorded with evaluations and
// comparisons: the module version when built as a dependency or with
// `go install`, else the VCS revision, else "devel".
var Version = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return "devel-" + rev
})

// MigrationState is one migration and whether the database has it.
type MigrationState struct {
	Version int64
	Name    string
	Applied bool
	// AppliedAt is zero when the migration is pending.
	AppliedAt string
}

// SchemaVersions reports the database's schema version (0 for an empty
// database) and the newest version this binary knows.
func (s *Store) SchemaVersions(ctx context.Context) (current, known int64, err error) {
	known = latestKnownVersion()
	current, err = s.dbVersion(ctx)
	return current, known, err
}

// Migrate applies every pending migration under an advisory lock and returns
// the versions it applied.
func (s *Store) Migrate(ctx context.Context) ([]int64, error) {
	if err := s.checkNotTooNew(ctx); err != nil {
		return nil, err
	}
	p, db, err := s.provider()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	results, err := p.Up(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate %s: %w", s.url, err)
	}
	var applied []int64
	for _, r := range results {
		applied = append(applied, r.Source.Version)
	}
	return applied, nil
}

// MigrateDownTo rolls the schema back to version (0 removes everything verdict
// created, data included). It exists for tests and for downgrades; the
// command line does not offer it.
func (s *Store) MigrateDownTo(ctx context.Context, version int64) error {
	p, db, err := s.provider()
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := p.DownTo(ctx, version); err != nil {
		return fmt.Errorf("migrate down to %d: %w", version, err)
	}
	return nil
}

// MigrationStatus lists every known migration and whether it is applied.
func (s *Store) MigrationStatus(ctx context.Context) ([]MigrationState, error) {
	p, db, err := s.provider()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	st, err := p.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("migration status: %w", err)
	}
	out := make([]MigrationState, 0, len(st))
	for _, m := range st {
		ms := MigrationState{Version: m.Source.Version, Name: m.Source.Path, Applied: m.State == goose.StateApplied}
		if ms.Applied {
			ms.AppliedAt = m.AppliedAt.Format("2006-01-02 15:04:05Z07:00")
		}
		out = append(out, ms)
	}
	return out, nil
}

// autoMigrate brings the schema up to date on connect. The common case, an
// up-to-date schema, costs one query and takes no lock.
func (s *Store) autoMigrate(ctx context.Context) error {
	current, known, err := s.SchemaVersions(ctx)
	if err != nil {
		return err
	}
	switch {
	case current > known:
		s.schemaErr = &SchemaVersionError{Found: current, Known: known}
		return nil
	case current == known:
		return nil
	}
	_, err = s.Migrate(ctx)
	return err
}

func (s *Store) checkNotTooNew(ctx context.Context) error {
	current, known, err := s.SchemaVersions(ctx)
	if err != nil {
		return err
	}
	if current > known {
		s.schemaErr = &SchemaVersionError{Found: current, Known: known}
		return s.schemaErr
	}
	return nil
}

// dbVersion reads goose's version table directly; 0 when it does not exist yet.
func (s *Store) dbVersion(ctx context.Context) (int64, error) {
	var v int64
	err := s.pool.QueryRow(ctx, `
		SELECT coalesce(max(version_id), 0)
		FROM goose_db_version
		WHERE is_applied`).Scan(&v)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" { // undefined_table
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

func latestKnownVersion() int64 {
	entries, err := migrations.FS.ReadDir(".")
	if err != nil {
		panic("store: embedded migrations unreadable: " + err.Error())
	}
	var latest int64
	for _, e := range entries {
		var v int64
		if _, err := fmt.Sscanf(e.Name(), "%d_", &v); err == nil && v > latest {
			latest = v
		}
	}
	return latest
}

type closer interface{ Close() error }

func (s *Store) provider() (*goose.Provider, closer, error) {
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 600))
	if err != nil {
		return nil, nil, err
	}
	db := stdlib.OpenDBFromPool(s.pool)
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithSessionLocker(locker))
	if err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("load migrations: %w", err)
	}
	return p, db, nil
}
