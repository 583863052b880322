package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFriedmanReference(t *testing.T) {
	t.Parallel()
	for _, c := range readReference[struct {
		Name    string      `json:"name"`
		Scores  [][]float64 `json:"scores"`
		Names   []string    `json:"names"`
		Alpha   float64     `json:"alpha"`
		Control string      `json:"control"`
		Want    struct {
			NBlocks        int              `json:"n_blocks"`
			K              int              `json:"k"`
			Names          []string         `json:"names"`
			AvgRanks       []float64        `json:"avg_ranks"`
			Chi2           float64          `json:"chi2"`
			DF             int              `json:"df"`
			PValue         float64          `json:"p_value"`
			ImanDavenportF float64          `json:"iman_davenport_f"`
			ImanDavenportP float64          `json:"iman_davenport_p"`
			CD             float64          `json:"cd"`
			Holm           []HolmComparison `json:"holm"`
		} `json:"want"`
	}](t, "friedman.json") {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			got, err := Friedman(c.Scores, FriedmanOptions{Names: c.Names, Alpha: c.Alpha, Control: c.Control})
			require.NoError(t, err)
			require.Equal(t, c.Want.NBlocks, got.NBlocks)
			require.Equal(t, c.Want.K, got.K)
			require.Equal(t, c.Want.DF, got.DF)
			require.Equal(t, c.Want.Names, got.Names)
			for j := range got.AvgRanks {
				requireRefClose(t, c.Want.AvgRanks[j], got.AvgRanks[j], "avg_ranks")
			}
			requireRefClose(t, c.Want.Chi2, got.Chi2, "chi2")
			requireRefClose(t, c.Want.PValue, got.PValue, "p_value")
			requireRefClose(t, c.Want.ImanDavenportF, got.ImanDavenportF, "iman_davenport_f")
			requireRefClose(t, c.Want.ImanDavenportP, got.ImanDavenportP, "iman_davenport_p")
			requireRefClose(t, c.Want.CD, got.CD, "cd")
			require.Len(t, got.Holm, len(c.Want.Holm))
			for i, h := range got.Holm {
				w := c.Want.Holm[i]
				require.Equal(t, w.Name, h.Name)
				require.Equal(t, w.Rejected, h.Rejected, "rejected %s", h.Name)
				requireRefClose(t, w.Z, h.Z, "holm z "+h.Name)
				requireRefClose(t, w.PValue, h.PValue, "holm p_value "+h.Name)
				requireRefClose(t, w.PAdjusted, h.PAdjusted, "holm p_adjusted "+h.Name)
			}
		})
	}
}

func TestNemenyiQReference(t *testing.T) {
	t.Parallel()
	b := readReference[struct {
		Alpha float64 `json:"alpha"`
		K     int     `json:"k"`
		Q     float64 `json:"q"`
	}](t, "nemenyi_q.json")
	for _, c := range b {
		requireRefClose(t, c.Q, nemenyiQ(c.Alpha, c.K), "q")
	}
	// Demšar (2006), table 5(a), within a unit of its third decimal.
	for k, q := range map[int]float64{2: 1.960, 3: 2.343, 4: 2.569, 5: 2.728, 6: 2.850, 7: 2.949, 8: 3.031, 9: 3.102, 10: 3.164} {
		require.InDelta(t, q, nemenyiQ(0.05, k), 0.001, "k = %d", k)
	}
}

func TestFriedmanEdgeCases(t *testing.T) {
	t.Parallel()
	t.Run("every block tied", func(t *testing.T) {
		t.Parallel()
		got, err := Friedman([][]float64{{1, 1, 1}, {0.5, 0.5, 0.5}, {2, 2, 2}}, FriedmanOptions{})
		require.NoError(t, err)
		require.Equal(t, []float64{2, 2, 2}, got.AvgRanks)
		require.Equal(t, 0.0, got.Chi2)
		require.Equal(t, 1.0, got.PValue)
		require.Equal(t, 0.0, got.ImanDavenportF)
		require.Equal(t, 1.0, got.ImanDavenportP)
		for _, h := range got.Holm {
			require.Equal(t, 0.0, h.Z)
			require.Equal(t, 1.0, h.PAdjusted)
			require.False(t, h.Rejected)
		}
		require.NotEmpty(t, got.Notes)
	})
	t.Run("identical order in every block", func(t *testing.T) {
		t.Parallel()
		got, err := Friedman([][]float64{{3, 2, 1}, {0.9, 0.5, 0.1}, {10, 5, 1}, {7, 6, 5}}, FriedmanOptions{Names: []string{"a", "b", "c"}})
		require.NoError(t, err)
		require.Equal(t, []float64{1, 2, 3}, got.AvgRanks)
		require.InDelta(t, 8, got.Chi2, 1e-12) // N(K−1)
		require.True(t, math.IsInf(got.ImanDavenportF, 1))
		require.Equal(t, 0.0, got.ImanDavenportP)
		require.NotEmpty(t, got.Notes)
		// b and c rank worse than the control a, so z is negative.
		require.Less(t, got.Holm[0].Z, 0.0)
	})
	t.Run("two models", func(t *testing.T) {
		t.Parallel()
		// K = 2: χ² = (wins − losses)²/N, the sign test's χ² (here 4²/6).
		got, err := Friedman([][]float64{{1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}, {0, 1}}, FriedmanOptions{})
		require.NoError(t, err)
		require.InDelta(t, 16.0/6, got.Chi2, 1e-12)
		require.InDelta(t, 1.959963984540054*math.Sqrt(2.0*3/(6*6)), got.CD, 1e-9)
	})
	tests := []struct {
		name    string
		scores  [][]float64
		opts    FriedmanOptions
		wantErr error
	}{
		{name: "one block", scores: [][]float64{{1, 2, 3}}, wantErr: ErrTooFew},
		{name: "one model", scores: [][]float64{{1}, {2}}, wantErr: ErrTooFew},
		{name: "ragged", scores: [][]float64{{1, 2, 3}, {1, 2}}, wantErr: ErrLengths},
		{name: "names too short", scores: [][]float64{{1, 2}, {2, 1}}, opts: FriedmanOptions{Names: []string{"a"}}, wantErr: ErrLengths},
		{name: "NaN", scores: [][]float64{{1, 2}, {math.NaN(), 1}}, wantErr: ErrNotFinite},
		{name: "unknown control", scores: [][]float64{{1, 2}, {2, 1}}, opts: FriedmanOptions{Control: "z"}, wantErr: ErrBadParameter},
		{name: "duplicate names", scores: [][]float64{{1, 2}, {2, 1}}, opts: FriedmanOptions{Names: []string{"a", "a"}}, wantErr: ErrBadParameter},
		{name: "alpha 1", scores: [][]float64{{1, 2}, {2, 1}}, opts: FriedmanOptions{Alpha: 1}, wantErr: ErrBadParameter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Friedman(tt.scores, tt.opts)
			require.ErrorIs(t, err, tt.wantErr)
		})
	}
}

func TestFriedmanErrorNamesTheCell(t *testing.T) {
	t.Parallel()
	_, err := Friedman([][]float64{{1, 2}, {2, math.Inf(1)}}, FriedmanOptions{})
	require.ErrorContains(t, err, "scores[1][1]")
}

// TestRankSumsAddUp ranks blocks of 3 and of 20 columns with many ties
// (the two ways RankSumsOf ranks), against average ranks counted
// directly, and requires the sums of two halves to add up to the sums of
// all, with Friedman of the sums equal to Friedman of the scores.
func TestRankSumsAddUp(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, k := range []int{3, 20} {
		scores := make([][]float64, 200)
		for i := range scores {
			scores[i] = make([]float64, k)
			for j := range scores[i] {
				scores[i][j] = float64(rng.IntN(4)) / 4
			}
		}
		s := RankSumsOf(scores)
		want := make([]int64, k)
		var ties int64
		for _, row := range scores {
			for j, v := range row {
				// 2·average rank: 2·(1 + #higher) + #equal others.
				var higher, equal int64
				for _, w := range row {
					if w > v {
						higher++
					} else if w == v {
						equal++
					}
				}
				want[j] += 2*(1+higher) + equal - 1
				ties += equal*equal - 1
			}
		}
		require.Equal(t, want, s.Twice, "k=%d", k)
		require.Equal(t, ties, s.Ties, "k=%d", k)
		require.False(t, s.SameOrder)
		a, b := RankSumsOf(scores[:77]), RankSumsOf(scores[77:])
		for j := range a.Twice {
			a.Twice[j] += b.Twice[j]
		}
		require.Equal(t, s.Twice, a.Twice)
		require.Equal(t, s.Ties, a.Ties+b.Ties)
		direct, err := Friedman(scores, FriedmanOptions{})
		require.NoError(t, err)
		of, err := FriedmanOfSums(s, FriedmanOptions{})
		require.NoError(t, err)
		require.Equal(t, direct, of)
	}
	same := RankSumsOf([][]float64{{3, 1, 2}, {9, 0, 5}})
	require.True(t, same.SameOrder)
	require.Equal(t, []int64{2 * 2, 3 * 2 * 2, 2 * 2 * 2}, same.Twice)
}
