package slow

import "testing"

// TestNeverEnds is still running when the binary's -timeout ends it.
func TestNeverEnds(t *testing.T) {
	t.Log("started")
	select {}
}
