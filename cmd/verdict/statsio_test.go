package main

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

type statsResultFixture struct {
	N      int       `json:"n"`
	T      float64   `json:"t"`
	P      *float64  `json:"z"`
	Ranks  []float64 `json:"avg_ranks"`
	Holm   []holmFixture
	Notes  []string `json:"notes,omitempty"`
	hidden int
}

type holmFixture struct {
	Name string  `json:"name"`
	P    float64 `json:"p_value"`
}

func TestStatsOutputRendersUndefinedAsNull(t *testing.T) {
	t.Parallel()
	res := statsResultFixture{N: 3, T: math.Inf(1), Ranks: []float64{1.5, math.NaN()},
		Holm: []holmFixture{{"b", 0.25}}, Notes: []string{"t is undefined: every difference is equal"}}
	o := toOrdered(reflect.ValueOf(res))

	var js strings.Builder
	require.NoError(t, writeJSON(&js, o))
	require.Equal(t, `{
  "n": 3,
  "t": null,
  "z": null,
  "avg_ranks": [1.5, null],
  "Holm": [{
    "name": "b",
    "p_value": 0.25
  }],
  "notes": ["t is undefined: every difference is equal"]
}
`, js.String())

	var tbl strings.Builder
	require.NoError(t, writeFields(&tbl, o))
	require.Equal(t, ""+
		"n          3\n"+
		"t          undefined\n"+
		"z          undefined\n"+
		"avg_ranks  1.5, undefined\n"+
		"Holm:\n"+
		"  - name b, p_value 0.25\n"+
		"notes      t is undefined: every difference is equal\n", tbl.String())
}
