package main

import (
	"fmt"
	"runtime"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/compare"
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
		Usage: "train three recommenders on MovieLens, evaluate and log them per user, and compare two",
		Description: `demo tells verdict's story on real data, the GroupLens MovieLens
"latest-small" ratings that ship with verdict (100,836 ratings by 610 users;
see testdata/movielens-latest-small/README.txt for the licence).

Each user's 10 latest ratings are held out as the targets; three simple
recommenders learn from the earlier ones: popularity, a recency-weighted
popularity and an item-kNN. Each ranks 20 unseen movies per user; verdict
evaluates the rankings per user and logs them to experiment "movielens-demo"
on the database verdict uses (the embedded default unless one is configured).
Then it compares models user by user, as 'verdict compare' does:
popularity and item-kNN are too close to tell apart on ndcg@10, and the
verdict says what it would take; popularity clearly beats its
recency-weighted variant. A rank of all three and the history follow. Running demo again finds the evaluations
already logged; each run records its comparisons in the history.`,
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
				report.Thousands(int64(len(ratings))), len(split.Users), demoHeldOut, report.Thousands(int64(len(split.TrainRatings))))

			metrics, err := evaluate.ParseMetrics([]string{"ndcg@10,20", "recall@10,20", "hit_rate@10", "map@20"})
			if err != nil {
				return err
			}
			show := []string{"ndcg@10", "recall@20", "hit_rate@10", "map@20"}
			t := report.Table{Header: append(append([]string{"MODEL"}, show...), "EVALUATION"), Right: map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true}}
			evals := map[string]*store.Evaluation{}
			for _, m := range []demo.Model{demo.Popularity(split), demo.RecentPopularity(split, 180), demo.ItemKNN(split, 50, 100)} {
				logged, means, err := demoEvaluate(c, st, split, m, metrics)
				if err != nil {
					return err
				}
				evals[m.Name] = &logged.Evaluation
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
			if err := t.Write(w, "table"); err != nil {
				return err
			}
			fmt.Fprintf(w, "\nevery mean above is backed by %d per-user values in the database.\n", len(split.Users))

			// Is the winner real? Pair the users and test, as 'verdict compare'
			// does: a close pair, then a clearly different one.
			for _, pair := range [][2]string{{"popularity", "item-knn"}, {"recent-popularity", "popularity"}} {
				fmt.Fprintf(w, "\nverdict compare %s %s --metric ndcg@10 (paired by user, bootstrap + randomization):\n", pair[0], pair[1])
				res, err := compare.Evaluations(c.Context, st, evals[pair[0]], evals[pair[1]],
					compare.Options{Metrics: []string{"ndcg@10"}, Record: true, Sentence: report.Verdict})
				if err != nil {
					return err
				}
				for _, r := range res.Metrics {
					fmt.Fprintf(w, "  %s\n", r.Verdict)
				}
			}

			// A third run joins: rank all three over the users they share.
			fmt.Fprintf(w, "\nverdict rank popularity recent-popularity item-knn --metric ndcg@10 (Friedman, users as blocks):\n")
			rk, err := compare.Rank(c.Context, st, compare.RankQuery{Metric: "ndcg@10",
				Evaluations: []*store.Evaluation{evals["popularity"], evals["recent-popularity"], evals["item-knn"]}})
			if err != nil {
				return err
			}
			for _, r := range rk.Runs {
				fmt.Fprintf(w, "  %-18s average rank %.3f\n", r.Name, r.AvgRank)
			}
			fmt.Fprintf(w, "  %d users, Iman-Davenport p = %.3g, Nemenyi critical difference %.3f: runs closer than that cannot be told apart.\n",
				rk.Units, rk.Friedman.ImanDavenportP, rk.Friedman.CD)

			hist, err := st.History(c.Context, store.HistoryFilter{Experiment: demoExperiment, Limit: 5})
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "\nthe history keeps every comparison (newest %d):\n", len(hist))
			for _, h := range hist {
				winner := map[string]string{"baseline": h.BaselineRun, "candidate": h.CandidateRun, "": "none (not distinguishable)"}[h.Winner]
				fmt.Fprintf(w, "  #%d %s: %s vs %s, winner: %s\n", h.ID, h.Metric, h.BaselineRun, h.CandidateRun, winner)
			}
			next := [][2]string{
				{"verdict leaderboard -e " + demoExperiment + " --metric ndcg@10", "runs with intervals and paired differences"},
				{"verdict diff -e " + demoExperiment + " --metric ndcg@10 popularity item-knn", "the users who moved most"},
				{"verdict rank -e " + demoExperiment + " --metric recall@20 --plot cd.svg popularity recent-popularity item-knn", "a critical-difference diagram"},
				{"verdict report -e " + demoExperiment + " --out " + demoExperiment + ".html", "all of it in one HTML file"},
				{"verdict db psql", "then SELECT * FROM comparison_history;"},
			}
			fmt.Fprintln(w, "\nnext:")
			for _, n := range next {
				fmt.Fprintf(w, "  %s\n      %s\n", n[0], n[1])
			}
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
