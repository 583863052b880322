package fingerprint_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/fingerprint"
)

func TestOrderAndFormatIndependent(t *testing.T) {
	t.Parallel()
	a := fingerprint.NewTargets()
	a.AddTargets([]byte("u1"), []string{"3", "1", "2"})
	a.AddTargets([]byte("u2"), []string{"7"})

	b := fingerprint.NewTargets()
	b.AddTargets([]byte("u2"), []string{"7", "7"})
	b.AddTargets([]byte("u1"), []string{"1", "2", "3", "2"})
	require.Equal(t, a.Sum(), b.Sum(), "row order, item order and repeats do not matter")

	c := fingerprint.NewTargets()
	c.AddTargets([]byte("u1"), []string{"1", "2", "3"})
	c.AddTargets([]byte("u2"), []string{"8"})
	require.NotEqual(t, a.Sum(), c.Sum(), "a different item is a different set")

	// Split and merged, as parallel readers do.
	d, e := fingerprint.NewTargets(), fingerprint.NewTargets()
	d.AddTargets([]byte("u1"), []string{"1", "2", "3"})
	e.AddTargets([]byte("u2"), []string{"7"})
	d.Merge(e)
	require.Equal(t, a.Sum(), d.Sum())
	require.Equal(t, uint64(2), d.Len())
}

func TestSamplesAndTargetsDiffer(t *testing.T) {
	t.Parallel()
	s := fingerprint.NewSamples()
	s.AddSample([]byte("u1"))
	tg := fingerprint.NewTargets()
	tg.AddTargets([]byte("u1"), nil)
	require.NotEqual(t, s.Sum(), tg.Sum())
	require.Equal(t, "samples", (&fingerprint.Set{}).Kind())
}

func ExampleSet() {
	f := fingerprint.NewTargets()
	f.AddTargets([]byte("user-1"), []string{"42", "7"})
	f.AddTargets([]byte("user-2"), []string{"7"})
	fmt.Println(f.Kind(), f.Len(), len(f.Sum()))
	// Output: targets 2 64
}

func TestLabelsCoverLabelsAndClasses(t *testing.T) {
	t.Parallel()
	sum := func(classes []string, rows ...[2]string) string {
		f := fingerprint.NewLabels()
		f.AddClasses(classes)
		for _, r := range rows {
			f.AddLabel([]byte(r[0]), r[1])
		}
		require.Equal(t, "labels", f.Kind())
		return f.Sum()
	}
	binary := []string{"0", "1"}
	a := sum(binary, [2]string{"s1", "1"}, [2]string{"s2", "0"})
	require.Equal(t, a, sum(binary, [2]string{"s2", "0"}, [2]string{"s1", "1"}), "row order")
	require.NotEqual(t, a, sum(binary, [2]string{"s1", "0"}, [2]string{"s2", "0"}), "one label changed")
	require.NotEqual(t, a, sum([]string{"0", "1", "2"}, [2]string{"s1", "1"}, [2]string{"s2", "0"}), "another class declared")
	require.NotEqual(t, a, sum(binary, [2]string{"s1", "1"}), "a sample fewer")
	// The ID and the label are delimited: "s1"+"10" is not "s11"+"0".
	require.NotEqual(t, sum(binary, [2]string{"s1", "10"}), sum(binary, [2]string{"s11", "0"}))
	tg := fingerprint.NewTargets()
	tg.AddTargets([]byte("s1"), []string{"1"})
	require.NotEqual(t, sum(nil, [2]string{"s1", "1"}), tg.Sum())
}

// TestTargetIndicesAreTheirText checks AddTargetIndices against AddTargets
// of the indices' decimal text, one row at a time, on rows where numeric and
// text order differ: across every digit count, the largest int32, repeats,
// and rows in any order.
func TestTargetIndicesAreTheirText(t *testing.T) {
	t.Parallel()
	edges := []int32{0, 1, 9, 10, 11, 19, 99, 100, 101, 999, 1000, 99999, 100000, 999999999, 1000000000, 2147483647}
	rows := [][]int32{{}, {0}, edges, {100, 10, 1}, {1, 10, 100, 2, 20}, {7, 7, 7}, {2147483647, 0, 2147483647}}
	rng := rand.New(rand.NewPCG(29, 1))
	for range 2000 {
		row := make([]int32, rng.IntN(12))
		for j := range row {
			if rng.IntN(4) == 0 {
				row[j] = edges[rng.IntN(len(edges))]
			} else {
				row[j] = int32(rng.IntN(1 << rng.IntN(32)))
			}
		}
		rows = append(rows, row)
	}
	byIndex, byText := fingerprint.NewTargets(), fingerprint.NewTargets()
	for i, row := range rows {
		id := fmt.Sprintf("user %d", i)
		one, want := fingerprint.NewTargets(), fingerprint.NewTargets()
		texts := func() []string { // new each time: AddTargets sorts them in place
			s := make([]string, len(row))
			for j, it := range row {
				s[j] = strconv.Itoa(int(it))
			}
			return s
		}
		one.AddTargetIndices(id, row)
		want.AddTargets([]byte(id), texts())
		require.Equal(t, want.Sum(), one.Sum(), "row %d: %v", i, row)
		byIndex.AddTargetIndices(id, row)
		byText.AddTargets([]byte(id), texts())
	}
	require.Equal(t, byText.Sum(), byIndex.Sum(), "one set of every row")
}
