package report

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestColorAllowedHonoursNoColor checks the environment rule on its own,
// since tests never write to a terminal: https://no-color.org says any
// non-empty NO_COLOR turns colour off, and an empty one does not.
func TestColorAllowedHonoursNoColor(t *testing.T) {
	for _, tt := range []struct {
		noColor, term string
		want          bool
	}{
		{"", "xterm-256color", true},
		{"1", "xterm-256color", false},
		{"0", "xterm-256color", false},
		{"", "dumb", false},
	} {
		t.Setenv("NO_COLOR", tt.noColor)
		t.Setenv("TERM", tt.term)
		require.Equal(t, tt.want, colorAllowed(), "NO_COLOR=%q TERM=%q", tt.noColor, tt.term)
	}
}
