package demo

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

// The story's experiment and evaluation set, and its protocol: each user's
// heldOut latest ratings are the targets, and each model ranks topK movies.
const (
	Experiment = "movielens-demo"
	EvalSet    = "latest-10-ratings"
	topK       = 20
	heldOut    = 10
)

// Tell tells verdict's story on MovieLens, to w: it trains the three
// models, evaluates each one's rankings per user and logs them to st (or
// finds them already logged), compares two pairs user by user and records
// the comparisons (a pair too close to call, and a clear winner), ranks all
// three; trains a matrix factorisation in two configurations with three
// seeds each, logs the runs in their groups and compares one pair of runs
// and then the configurations over their seeds; and shows the history and
// what to try next. It calls the packages a user's own job would:
// evaluate, store, compare and report.
func Tell(ctx context.Context, st *store.Store, w io.Writer) error {
	ratings, err := LoadMovieLens()
	if err != nil {
		return err
	}
	split := SplitLatest(ratings, heldOut)
	fmt.Fprintf(w, "database: %s\n", st.URL())
	fmt.Fprintf(w, "MovieLens latest-small: %s ratings by %d users; each user's %d latest ratings are the targets, %s earlier ones train the models.\n\n",
		report.Thousands(int64(len(ratings))), len(split.Users), heldOut, report.Thousands(int64(len(split.TrainRatings))))

	metrics, err := evaluate.ParseMetrics([]string{"ndcg@10,20", "recall@10,20", "hit_rate@10", "map@20"})
	if err != nil {
		return err
	}
	evals, err := logModels(ctx, st, w, split, metrics, []Model{Popularity(split), RecentPopularity(split, 180), ItemKNN(split, 50, 100)})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nevery mean above is backed by %d per-user values in the database.\n", len(split.Users))

	// Is the winner real? Pair the users and test, as 'verdict compare'
	// does: a close pair, then a clearly different one.
	for _, pair := range [][2]string{{"popularity", "item-knn"}, {"recent-popularity", "popularity"}} {
		fmt.Fprintf(w, "\nverdict compare %s %s --metric ndcg@10 (paired by user, bootstrap + randomization):\n", pair[0], pair[1])
		res, err := compare.Evaluations(ctx, st, evals[pair[0]], evals[pair[1]],
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
	rk, err := compare.Rank(ctx, st, compare.RankQuery{Metric: "ndcg@10",
		Evaluations: []*store.Evaluation{evals["popularity"], evals["recent-popularity"], evals["item-knn"]}})
	if err != nil {
		return err
	}
	for _, r := range rk.Runs {
		fmt.Fprintf(w, "  %-18s average rank %.3f\n", r.Name, r.AvgRank)
	}
	fmt.Fprintf(w, "  %d users, Iman-Davenport p = %.3g, Nemenyi critical difference %.3f: runs closer than that cannot be told apart.\n",
		rk.Units, rk.Friedman.ImanDavenportP, rk.Friedman.CD)

	if err := tellSeeds(ctx, st, w, split, metrics); err != nil {
		return err
	}

	hist, err := st.History(ctx, store.HistoryFilter{Experiment: Experiment, Limit: 5})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nthe history keeps every comparison (newest %d):\n", len(hist))
	for _, h := range hist {
		winner := map[string]string{"baseline": h.BaselineRun, "candidate": h.CandidateRun, "": "none (not distinguishable)"}[h.Winner]
		fmt.Fprintf(w, "  #%d %s: %s vs %s, winner: %s\n", h.ID, h.Metric, h.BaselineRun, h.CandidateRun, winner)
	}
	if err := tellClassifiers(ctx, st, w); err != nil {
		return err
	}
	next := [][2]string{
		{"verdict leaderboard -e " + Experiment + " --metric ndcg@10", "runs with intervals and paired differences"},
		{"verdict diff -e " + Experiment + " --metric ndcg@10 popularity item-knn", "the users who moved most"},
		{"verdict rank -e " + Experiment + " --metric recall@20 --plot cd.svg popularity recent-popularity item-knn", "a critical-difference diagram"},
		{"verdict report -e " + Experiment + " --out " + Experiment + ".html", "all of it in one HTML file"},
		{"verdict leaderboard -e " + Experiment + " --metric ndcg@10 --by-group", "each configuration over its seeds"},
		{"verdict leaderboard -e " + ClassifierExperiment + " --metric log_loss", "the classifiers, with stratified bootstrap intervals"},
		{"verdict db psql", "then SELECT * FROM comparison_history;"},
	}
	fmt.Fprintln(w, "\nnext:")
	for _, n := range next {
		fmt.Fprintf(w, "  %s\n      %s\n", n[0], n[1])
	}
	return nil
}

// The seeds part: the configurations of a model whose training is random,
// and the seeds each is trained with.
var (
	seedFactors = []int{16, 32}
	seeds       = []uint64{1, 2, 3}
)

// tellSeeds tells the seeds part of the story: a BPR matrix factorisation
// with two numbers of factors, each trained with three seeds, every run
// logged in its configuration's group; one run of each configuration
// compared, as a single pair of runs would be, then the two configurations
// over all their seeds, and whether the two answers agree.
func tellSeeds(ctx context.Context, st *store.Store, w io.Writer, split *Split, metrics []evaluate.Metric) error {
	models := SeededMFs(split, seedFactors, seeds)
	base, cand := models[0], models[len(seeds)]
	fmt.Fprintf(w, "\nseeds: a model whose training is random, a BPR matrix factorisation trained by SGD from a seed, with %d or %d factors and seeds %d, %d and %d. Each run is logged in its configuration's group:\n",
		seedFactors[0], seedFactors[1], seeds[0], seeds[1], seeds[2])
	fmt.Fprintf(w, "verdict evaluate -e %s -s %s -r %s --group %s --param factors=%d --param seed=%d --predictions %s.csv --targets targets.csv (one for each run):\n\n",
		Experiment, EvalSet, base.Name, base.Group, seedFactors[0], seeds[0], base.Name)
	evals, err := logModels(ctx, st, w, split, metrics, models)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nverdict compare -e %s %s %s --metric ndcg@10 (one run of each configuration):\n", Experiment, base.Name, cand.Name)
	pair, err := compare.Evaluations(ctx, st, evals[base.Name], evals[cand.Name],
		compare.Options{Metrics: []string{"ndcg@10"}, Record: true, Sentence: report.Verdict})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  %s\n", pair.Metrics[0].Verdict)
	for _, x := range pair.Metrics[0].Warnings {
		fmt.Fprintf(w, "  warning: %s\n", report.WarningText(x))
	}

	fmt.Fprintf(w, "\nverdict compare -e %s --groups %s %s --metric ndcg@10 (all their seeds: a two-level bootstrap of runs and users):\n", Experiment, base.Group, cand.Group)
	req := compare.Request{Pair: compare.Pair{Experiment: Experiment, EvalSet: EvalSet, Baseline: base.Group, Candidate: cand.Group},
		Groups: true, Metrics: []string{"ndcg@10"}}
	groups, err := req.Run(ctx, st, nil, false, report.Verdict)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  %s\n  %s\n", groups.Metrics[0].Verdict, agreement(pair.Metrics[0], groups.Metrics[0], len(seeds)))
	return nil
}

// agreement says whether a comparison of one run of each configuration
// (pair) and the comparison of the configurations over their seeds runs
// each (groups) agree, and how the seeds' noise compares with the gap.
func agreement(pair, groups *compare.MetricResult, seeds int) string {
	winner := func(r *compare.MetricResult) string {
		return map[compare.Side]string{compare.Baseline: r.Baseline, compare.Candidate: r.Candidate}[r.Winner]
	}
	pw, gw := winner(pair), winner(groups)
	var says string
	switch {
	case pw != "" && gw == "":
		says = fmt.Sprintf("the single pair of runs calls a winner, %s, but over %d seeds each the configurations are not distinguishable", pw, seeds)
	case pw == "" && gw != "":
		says = fmt.Sprintf("the single pair of runs cannot tell them apart, but over %d seeds each %s is better", seeds, gw)
	case pw == "":
		says = fmt.Sprintf("both agree: neither the single pair of runs nor the configurations over %d seeds each are distinguishable", seeds)
	case pair.Winner == groups.Winner:
		says = fmt.Sprintf("both agree: %s wins the single pair, and %s wins over %d seeds each", pw, gw, seeds)
	default:
		says = fmt.Sprintf("they disagree: the single pair of runs calls %s, the configurations over %d seeds each %s", pw, seeds, gw)
	}
	noise, gap := groups.Seeds.RunToRun, math.Abs(groups.Difference.Estimate)
	if groups.Seeds.SeedNoiseDominates {
		return fmt.Sprintf("%s; seed noise is as large as the gap: two runs of one configuration typically differ by %.4f on %s, the configurations by %.4f.", says, noise, groups.Metric, gap)
	}
	return fmt.Sprintf("%s; two runs of one configuration typically differ by %.4f on %s, less than the configurations' gap of %.4f.", says, noise, groups.Metric, gap)
}

// shownMetrics are the metrics the tables of logged models show.
var shownMetrics = []string{"ndcg@10", "recall@20", "hit_rate@10", "map@20"}

// logModels logs each model (or finds it logged) and writes a table of
// their means on shownMetrics and their evaluations to w. It returns the
// evaluations by model name.
func logModels(ctx context.Context, st *store.Store, w io.Writer, split *Split, metrics []evaluate.Metric, models []Model) (map[string]*store.Evaluation, error) {
	t := report.Table{Header: append(append([]string{"MODEL"}, shownMetrics...), "EVALUATION"), Right: map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true}}
	evals := map[string]*store.Evaluation{}
	for _, m := range models {
		logged, means, err := logModel(ctx, st, split, m, metrics)
		if err != nil {
			return nil, err
		}
		evals[m.Name] = &logged.Evaluation
		row := []string{m.Name}
		for _, k := range shownMetrics {
			row = append(row, strconv.FormatFloat(means[k], 'f', 4, 64))
		}
		note := fmt.Sprintf("%d", logged.ID)
		if logged.Existing {
			note += " (already logged)"
		}
		t.Add(append(row, note)...)
	}
	return evals, t.Write(w, "table")
}

// logModel ranks, evaluates and logs one model, in its group if it has
// one, the way `verdict evaluate` does with files.
func logModel(ctx context.Context, st *store.Store, split *Split, m Model, metrics []evaluate.Metric) (*store.Logged, map[string]float64, error) {
	ids, ranked, targets := Rankings(split, m, topK)
	src, err := evaluate.NewInMemoryRankings(ids, ranked, targets, topK)
	if err != nil {
		return nil, nil, err
	}
	ev, err := evaluate.NewEvaluator(metrics)
	if err != nil {
		return nil, nil, err
	}
	scoring := ev.Start(ctx, src, runtime.GOMAXPROCS(0))
	defer scoring.Close()
	logged, err := st.LogEvaluation(ctx, store.NewEvaluation{
		Experiment: Experiment,
		Run:        m.Name,
		Group:      m.Group,
		EvalSet:    EvalSet,
		Params:     m.Params,
		Tags:       []string{"demo"},
		Metadata:   map[string]any{"data": "MovieLens latest-small", "held_out_per_user": heldOut},
		Protocol:   store.Protocol{Cutoffs: []int{10, 20}, RequiredK: topK},
	}, scoring)
	if err != nil {
		return nil, nil, err
	}
	return logged, scoring.Summary().Means(), nil
}
