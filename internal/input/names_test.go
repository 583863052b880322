package input

import "testing"

// TestNameProblem words each problem of a header, as the score and the
// prediction readers report it.
func TestNameProblem(t *testing.T) {
	for _, c := range []struct {
		names []string
		kind  string
		want  string
	}{
		{[]string{"sample_id", "ndcg"}, "column", ""},
		{[]string{"", "ndcg"}, "column", "column 1 has no name (was a pandas index written without index=False?)"},
		{[]string{"sample_id", ""}, "key", "key 2 has no name"},
		{[]string{"Unnamed: 0", "ndcg"}, "column", `column 1 is named "Unnamed: 0" (was a pandas index written without index=False?)`},
		{[]string{"Unnamed: 0", "ndcg"}, "key", ""},
		{[]string{"ndcg", "sample_id", "ndcg"}, "array", `array "ndcg" appears twice (arrays 1 and 3)`},
	} {
		seen, got := map[string]int{}, ""
		for i := range c.names {
			if got = NameProblem(c.names, i, c.kind, seen); got != "" {
				break
			}
		}
		if got != c.want {
			t.Errorf("%q as %ss: %q, want %q", c.names, c.kind, got, c.want)
		}
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1000: "1000 bytes", 1 << 10: "1 KiB", 3 << 20: "3 MiB", 2 << 30: "2 GiB", 1<<30 + 1<<20: "1025 MiB"} {
		if got := ByteSize(n); got != want {
			t.Errorf("ByteSize(%d) = %q, want %q", n, got, want)
		}
	}
}
