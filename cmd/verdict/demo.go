package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/store"
)

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "log two runs' per-user scores on synthetic users and list them",
		Description: `demo creates the experiment "demo" on the database verdict uses (the embedded
default unless one is configured), logs the per-user scores of two runs,
"baseline" and "candidate", on the same synthetic users, and lists the runs.
The data is seeded: running demo again finds the evaluations already logged
and writes nothing.`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "users", Value: 5000, Usage: "number of synthetic `USERS`"},
		},
		Action: func(c *cli.Context) error {
			n := c.Int("users")
			if n < 1 {
				return userError("--users must be at least 1, got %d", n)
			}
			st, err := openStore(c)
			if err != nil {
				return err
			}
			defer st.Close()
			w := c.App.Writer
			fmt.Fprintf(w, "database: %s\n\n", st.URL())
			for _, run := range []struct {
				name string
				lift float64
				seed uint64
			}{{"baseline", 0, 1}, {"candidate", 0.02, 2}} {
				ev := store.NewEvaluation{
					Experiment: "demo",
					Run:        run.name,
					EvalSet:    "synthetic-test",
					Params:     map[string]any{"lift": run.lift},
					Tags:       []string{"demo"},
					Protocol:   store.Protocol{Cutoffs: []int{10, 20}, RequiredK: 20},
				}
				logged, err := st.LogEvaluation(c.Context, ev, newSyntheticScores(n, run.lift, run.seed))
				if err != nil {
					return err
				}
				if err := printLogged(w, "table", logged); err != nil {
					return err
				}
				fmt.Fprintf(w, "  mean ndcg@10 %.4f, recall@20 %.4f\n", logged.Aggregates["ndcg@10"], logged.Aggregates["recall@20"])
			}
			fmt.Fprintln(w)
			runs, err := st.ListRuns(c.Context, "demo")
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "runs of experiment demo:\n")
			for _, r := range runs {
				fmt.Fprintf(w, "  %-10s %d evaluation(s), logged %s\n", r.Name, r.Evaluations, r.LastLogged.Local().Format("2006-01-02 15:04"))
			}
			fmt.Fprintln(w, "\nnext: 'verdict runs', or 'verdict db psql' and SELECT * FROM evaluation_overview;")
			return nil
		},
	}
}

// syntheticScores generates per-user ndcg@10 and recall@20 values: each user
// has a difficulty shared by both runs (so the runs are paired), plus noise of
// the run's own; lift shifts a run's chance of a hit.
type syntheticScores struct {
	n, i int
	lift float64
	user *rand.Rand // the same stream for every run: user difficulty
	run  *rand.Rand // the run's own noise
	vals []float64
	id   string
}

func newSyntheticScores(n int, lift float64, seed uint64) *syntheticScores {
	return &syntheticScores{
		n:    n,
		lift: lift,
		user: rand.New(rand.NewPCG(42, 0)),
		run:  rand.New(rand.NewPCG(42, seed)),
		vals: make([]float64, 2),
	}
}

func (s *syntheticScores) Metrics() []string { return []string{"ndcg@10", "recall@20"} }
func (s *syntheticScores) HasDraw() bool     { return false }
func (s *syntheticScores) SampleID() string  { return s.id }
func (s *syntheticScores) Draw() int64       { return 0 }
func (s *syntheticScores) Values() []float64 { return s.vals }
func (s *syntheticScores) Where() string     { return fmt.Sprintf("synthetic user %d", s.i) }
func (s *syntheticScores) Err() error        { return nil }

func (s *syntheticScores) Next() bool {
	if s.i == s.n {
		return false
	}
	s.i++
	s.id = fmt.Sprintf("user-%05d", s.i)
	p := min(max(0.15+0.5*s.user.Float64()+s.lift, 0), 1) // chance of a hit per slot
	hits10, hits20, dcg := 0, 0, 0.0
	for rank := 1; rank <= 20; rank++ {
		if s.run.Float64() < p*0.3 {
			hits20++
			if rank <= 10 {
				hits10++
				dcg += 1 / log2(float64(rank)+1)
			}
		}
	}
	relevant := 5 // every synthetic user has five relevant items
	ideal := 0.0
	for rank := 1; rank <= min(10, relevant); rank++ {
		ideal += 1 / log2(float64(rank)+1)
	}
	s.vals[0] = min(dcg/ideal, 1)
	s.vals[1] = float64(min(hits20, relevant)) / float64(relevant)
	return true
}

func log2(x float64) float64 { return math.Log2(x) }
