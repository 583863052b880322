package main

import (
	"fmt"
	"runtime"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/demo"
	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

const (
	demoExperiment = "movielens-demo"
	demoEvalSet    = "latest-10-ratings"
	demoTopK       = 20
	demoHeldOut    = 10
)

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "train three recommenders on MovieLens, evaluate them per user and log them",
		Description: `demo tells verdict's story on real data, the GroupLens MovieLens
"latest-small" ratings that ship with verdict (100,836 ratings by 610 users;
see testdata/movielens-latest-small/README.txt for the licence).

Each user's 10 latest ratings are held out as the targets; three simple
recommenders learn from the earlier ones: popularity, a recency-weighted
popularity and an item-kNN. Each ranks 20 unseen movies per user; verdict
evaluates the rankings per user and logs them to experiment "movielens-demo"
on the database verdict uses (the embedded default unless one is configured).
Running demo again finds the evaluations already logged and writes nothing.`,
		Action: func(c *cli.Context) error {
			w := c.App.Writer
			ratings, err := demo.LoadMovieLens()
			if err != nil {
				return err
			}
			split := demo.SplitLatest(ratings, demoHeldOut)
			st, err := openStore(c)
			if err != nil {
				return err
			}
			defer st.Close()
			fmt.Fprintf(w, "database: %s\n", st.URL())
			fmt.Fprintf(w, "MovieLens latest-small: %s ratings by %d users; each user's %d latest ratings are the targets, %s earlier ones train the models.\n\n",
				thousands(int64(len(ratings))), len(split.Users), demoHeldOut, thousands(int64(len(split.TrainRatings))))

			metrics, err := evaluate.ParseMetrics([]string{"ndcg@10,20", "recall@10,20", "hit_rate@10", "map@20"})
			if err != nil {
				return err
			}
			show := []string{"ndcg@10", "recall@20", "hit_rate@10", "map@20"}
			t := report.Table{Header: append(append([]string{"MODEL"}, show...), "EVALUATION"), Right: map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true}}
			for _, m := range []demo.Model{demo.Popularity(split), demo.RecentPopularity(split, 180), demo.ItemKNN(split, 50, 100)} {
				logged, means, err := demoEvaluate(c, st, split, m, metrics)
				if err != nil {
					return err
				}
				row := []string{m.Name}
				for _, k := range show {
					row = append(row, strconv.FormatFloat(means[k], 'f', 4, 64))
				}
				note := fmt.Sprintf("%d", logged.ID)
				if logged.Existing {
					note += " (already logged)"
				}
				t.Add(append(row, note)...)
			}
			if err := t.Render(w); err != nil {
				return err
			}
			fmt.Fprintf(w, "\nevery mean above is backed by %d per-user values in the database.\n", len(split.Users))
			fmt.Fprintf(w, "next: 'verdict runs -e %s', or 'verdict db psql' and\n  SELECT run, metric, mean FROM evaluation_metrics WHERE experiment = '%s' ORDER BY metric, mean DESC;\n", demoExperiment, demoExperiment)
			return nil
		},
	}
}

// demoEvaluate ranks, evaluates and logs one model, the way `verdict
// evaluate` does with files.
func demoEvaluate(c *cli.Context, st *store.Store, split *demo.Split, m demo.Model, metrics []evaluate.Metric) (*store.Logged, map[string]float64, error) {
	ids, ranked, targets := demo.Rankings(split, m, demoTopK)
	src, err := evaluate.NewInMemoryRankings(ids, ranked, targets, demoTopK)
	if err != nil {
		return nil, nil, err
	}
	ev, err := evaluate.NewEvaluator(metrics)
	if err != nil {
		return nil, nil, err
	}
	scoring := ev.Start(c.Context, src, runtime.GOMAXPROCS(0))
	defer scoring.Close()
	logged, err := st.LogEvaluation(c.Context, store.NewEvaluation{
		Experiment: demoExperiment,
		Run:        m.Name,
		EvalSet:    demoEvalSet,
		Params:     m.Params,
		Tags:       []string{"demo"},
		Metadata:   map[string]any{"data": "MovieLens latest-small", "held_out_per_user": demoHeldOut},
		Protocol:   store.Protocol{Cutoffs: []int{10, 20}, RequiredK: demoTopK},
	}, scoring)
	if err != nil {
		return nil, nil, err
	}
	return logged, scoring.Summary().Means(), nil
}
