// Package testenv decides what a test does when something it needs from the
// machine is missing: skip, on a developer's machine that lacks it, or fail,
// where the run was promised it.
//
// A run promises a need by naming it in VERDICT_TEST_REQUIRE, a
// comma-separated list such as "citus,chromium,python,root". .ci/run sets it
// to what it has just installed, so that a test which would quietly skip for
// want of the Citus kit, Chromium, a Python package or root fails CI
// instead. Without the variable every need is optional and a test skips with
// its reason, which `go test -v` and .ci/run's summary show.
//
// It does not check that a need is met; the test does that and calls Need
// only when it is not.
package testenv

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// The needs a run can promise.
const (
	Citus    = "citus"    // the Citus kit installed into PostgreSQL 15
	Chromium = "chromium" // /usr/bin/chromium
	Python   = "python"   // /usr/bin/python3 with NumPy, pandas and SciPy
	Root     = "root"     // the tests run as root
)

// RequireVar is the environment variable that lists the promised needs.
const RequireVar = "VERDICT_TEST_REQUIRE"

// Required reports whether the run promised need; the list may have
// spaces after its commas.
func Required(need string) bool {
	return slices.Contains(strings.FieldsFunc(os.Getenv(RequireVar), func(r rune) bool { return r == ',' || r == ' ' }), need)
}

// Need ends t because need is missing: it fails t when the run promised
// need (see Required), and skips it otherwise. reason says what is missing
// and how to provide it.
func Need(t testing.TB, need, reason string) {
	t.Helper()
	if Required(need) {
		t.Fatalf("%s (%s=%s promises %s)", reason, RequireVar, os.Getenv(RequireVar), need)
	}
	t.Skip(reason)
}
