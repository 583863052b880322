// Package storetest hands tests a real, empty PostgreSQL database of their own.
//
// The server is the one named by $TEST_DATABASE_URL or, when that is unset, an
// embedded cluster (package store/localpg) started in a temporary
// VERDICT_HOME for the test binary and stopped when it exits. Either way each
// call to NewDatabase creates a fresh database, dropped when the test ends, so
// tests can run in parallel and migrate, log and break things freely.
package storetest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/verdict-ml/verdict/store/localpg"
)

var (
	mu      sync.Mutex
	admin   string // URL of a database to run CREATE DATABASE from
	cluster *localpg.Cluster
	home    string
	counter atomic.Int64
)

// Main runs the tests of a package and stops the embedded cluster, if one was
// started, before exiting. Use it from TestMain:
//
//	func TestMain(m *testing.M) { storetest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	mu.Lock()
	if cluster != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_ = cluster.Stop(ctx)
		cancel()
		_ = os.RemoveAll(home)
	}
	mu.Unlock()
	os.Exit(code)
}

// ServerURL returns the URL of a database on the test server from which
// databases can be created, starting the embedded cluster on first use.
func ServerURL(t testing.TB) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if admin != "" {
		return admin
	}
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		admin = u
		return admin
	}
	dir, err := os.MkdirTemp("", "verdict-test-")
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	home = dir
	cluster = localpg.New(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	u, err := cluster.Ensure(ctx)
	if err != nil {
		t.Fatalf("storetest: start the embedded test cluster in %s: %v", dir, err)
	}
	admin = u
	return admin
}

// NewDatabase creates an empty database for t and returns its URL. The
// database is dropped when t ends.
func NewDatabase(t testing.TB) string {
	t.Helper()
	base := ServerURL(t)
	name := fmt.Sprintf("verdict_test_%d_%d", os.Getpid(), counter.Add(1))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("storetest: connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("storetest: create database: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("storetest: connect to drop %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("storetest: drop %s: %v", name, err)
		}
	})
	return withDatabase(t, base, name)
}

// withDatabase returns base with its database name replaced.
func withDatabase(t testing.TB, base, name string) string {
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" {
		t.Fatalf("storetest: TEST_DATABASE_URL must be a postgres:// URL, got %q", base)
	}
	u.Path = "/" + name
	return u.String()
}

// connect opens one connection to the database at url, or fails t.
func connect(t testing.TB, ctx context.Context, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("storetest: connect: %v", err)
	}
	return conn
}

// Scalar runs a query returning one value on the database at url, for
// assertions on what a test left in the database.
func Scalar[T any](t testing.TB, url, query string, args ...any) T {
	t.Helper()
	ctx := context.Background()
	conn := connect(t, ctx, url)
	defer conn.Close(ctx)
	var v T
	if err := conn.QueryRow(ctx, query, args...).Scan(&v); err != nil {
		t.Fatalf("storetest: %s: %v", query, err)
	}
	return v
}

// Exec runs sql, one or more statements without parameters, on the database
// at url.
func Exec(t testing.TB, url, sql string) {
	t.Helper()
	ctx := context.Background()
	conn := connect(t, ctx, url)
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("storetest: %s: %v", sql, err)
	}
}
