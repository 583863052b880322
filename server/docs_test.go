package server

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDocsListEveryRoute keeps docs/api.md's table of routes whole: every
// route of the router is in it, with its role, /metrics included.
func TestDocsListEveryRoute(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/api.md")
	require.NoError(t, err)
	doc := string(b)
	for _, rt := range (&Server{metrics: newMetrics()}).table() {
		path := strings.ReplaceAll(rt.pattern, "{$}", "")
		role := "none"
		if !rt.public {
			role = string(rt.role)
		}
		require.Contains(t, doc, "| `"+rt.method+" "+path+"` | "+role+" |", "docs/api.md lists %s %s", rt.method, rt.pattern)
	}
}
