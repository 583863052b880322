package bad

import "testing"

func TestPasses(t *testing.T) {}

func TestFails(t *testing.T) {
	t.Log("a clue")
	t.Error("want 1, got 2")
}
