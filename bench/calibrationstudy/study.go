package main

import (
	"io"
	"math"
	"math/rand/v2"
	"slices"
)

// plan sizes the study: the sample sizes, correlations and numbers of
// replications of each part.
type plan struct {
	// userSizes are the numbers of users, rhos the latent correlations of
	// the two sides, and userReps the replications at each size.
	userSizes []int
	rhos      []float64
	userReps  map[int]int
	// foldSizes are the data set sizes of the cross-validation study.
	foldSizes []int
	foldReps  int
	// classSizes are the numbers of samples of the classifier study.
	classSizes []int
	classReps  map[int]int
	// rankSizes are the numbers of users (blocks) of the Friedman study,
	// metricSizes the numbers of samples of the classifier-metrics study.
	rankSizes   []int
	rankReps    map[int]int
	metricSizes []int
	metricReps  map[int]int
	// poissonSizes are the numbers of paired units of the Poisson study.
	poissonSizes []int
	poissonReps  map[int]int
	// agreeSizes are the numbers of paired units of the agreement study.
	agreeSizes []int
	agreeReps  map[int]int
	// marginSizes are the numbers of users of the margin study.
	marginSizes []int
	marginReps  map[int]int
	// seedSDs are the seed effects' standard deviations of the seeds
	// study, seedRuns its runs per configuration, seedSizes its numbers
	// of users and seedReps its replications in every cell.
	seedSDs   []float64
	seedRuns  []int
	seedSizes []int
	seedReps  int
}

// fullPlan is the study bench/calibration runs: about a quarter of an hour
// on 2 cores. Replications are fewer where a replication is slow (10,000
// users, 10,000 AUC samples); the rates there have wider intervals, which
// the tables show.
func fullPlan() plan {
	return plan{
		userSizes:   []int{20, 100, 1000, 10000},
		rhos:        []float64{0, 0.5, 0.9},
		userReps:    map[int]int{20: 4000, 100: 4000, 1000: 2000, 10000: 600},
		foldSizes:   []int{100, 300, 1000},
		foldReps:    4000,
		classSizes:  []int{20, 100, 1000, 10000},
		classReps:   map[int]int{20: 2000, 100: 2000, 1000: 1000, 10000: 200},
		rankSizes:   []int{20, 100, 1000, 10000},
		rankReps:    map[int]int{20: 2000, 100: 2000, 1000: 2000, 10000: 600},
		metricSizes: []int{20, 100, 1000},
		metricReps:  map[int]int{20: 1000, 100: 1000, 1000: 1000},
		// At 100,000 units a replication cost 6 to 8 s of CPU when this
		// part was sized, nearly all of it HashedReplicates (30 to 37 ns a
		// unit and replicate; about 5.5 since it hashes each replicate's
		// seed once): 20 replications a cell.
		poissonSizes: []int{20, 100, 1000, 100000},
		poissonReps:  map[int]int{20: 2000, 100: 2000, 1000: 1000, 100000: 20},
		// A replication at 1,000,000 units costs about 1.5 s of CPU, the
		// bootstrap and the sign flips of B = 2000 nearly all of it.
		agreeSizes:  []int{100, 1000, 10000, 100000, 1000000},
		agreeReps:   map[int]int{100: 2000, 1000: 1000, 10000: 400, 100000: 100, 1000000: 20},
		marginSizes: []int{100, 1000},
		marginReps:  map[int]int{100: 4000, 1000: 2000},
		seedSDs:     []float64{0, 0.01, 0.02, 0.05},
		seedRuns:    []int{2, 3, 5},
		seedSizes:   []int{60, 500},
		seedReps:    2000,
	}
}

// scaled multiplies every number of replications by s, keeping at least
// blockSize.
func (p plan) scaled(s float64) plan {
	sc := func(r int) int { return max(blockSize, int(math.Round(float64(r)*s))) }
	q := p
	q.userReps, q.classReps, q.rankReps, q.metricReps, q.poissonReps = map[int]int{}, map[int]int{}, map[int]int{}, map[int]int{}, map[int]int{}
	q.marginReps, q.agreeReps = map[int]int{}, map[int]int{}
	for n, r := range p.agreeReps {
		q.agreeReps[n] = sc(r)
	}
	for n, r := range p.marginReps {
		q.marginReps[n] = sc(r)
	}
	for n, r := range p.userReps {
		q.userReps[n] = sc(r)
	}
	for n, r := range p.classReps {
		q.classReps[n] = sc(r)
	}
	for n, r := range p.rankReps {
		q.rankReps[n] = sc(r)
	}
	for n, r := range p.metricReps {
		q.metricReps[n] = sc(r)
	}
	for n, r := range p.poissonReps {
		q.poissonReps[n] = sc(r)
	}
	q.foldReps = sc(p.foldReps)
	q.seedReps = sc(p.seedReps)
	return q
}

// study is the parts of the study with their results.
type study struct {
	plan       plan
	users      []userConfig
	userRes    []cellResult
	folds      []foldConfig
	foldRes    []cellResult
	classes    []classConfig
	classRes   []cellResult
	ranks      []rankConfig
	rankRes    []cellResult
	metrics    []metricConfig
	metricRes  []cellResult
	poissons   []poissonConfig
	poissonRes []cellResult
	agrees     []agreeConfig
	agreeRes   []cellResult
	margins    []marginConfig
	marginRes  []cellResult
	seeds      []seedConfig
	seedRes    []cellResult
}

// newStudy returns the study of plan p, with the parts named (users,
// folds, auc, friedman, metrics, poisson, agree, margin, seeds) alone.
func newStudy(p plan, parts []string) *study {
	s := &study{plan: p}
	if slices.Contains(parts, "users") {
		s.users = userConfigs(userShapes(), p.rhos, p.userSizes)
	}
	if slices.Contains(parts, "folds") {
		s.folds = foldConfigs(p.foldSizes)
	}
	if slices.Contains(parts, "auc") {
		s.classes = classConfigs(p.rhos, p.classSizes)
	}
	if slices.Contains(parts, "friedman") {
		s.ranks = rankConfigs(p.rhos, p.rankSizes)
	}
	if slices.Contains(parts, "metrics") {
		s.metrics = metricConfigs(p.rhos, p.metricSizes)
	}
	if slices.Contains(parts, "poisson") {
		s.poissons = poissonConfigs(p.poissonSizes, p.poissonReps)
	}
	if slices.Contains(parts, "agree") {
		s.agrees = agreeConfigs(p.agreeSizes, p.agreeReps)
	}
	if slices.Contains(parts, "margin") {
		s.margins = marginConfigs(p.marginSizes)
	}
	if slices.Contains(parts, "seeds") {
		s.seeds = seedConfigs(p.seedSDs, p.seedRuns, p.seedSizes)
	}
	return s
}

// run runs every part's replications together on workers goroutines.
func (s *study) run(workers int, log io.Writer) {
	var cells []cell
	for _, c := range s.users {
		cost := float64(c.n)
		if c.shape.clustered {
			cost *= 3
		}
		cells = append(cells, cell{key: c.key(), reps: s.plan.userReps[c.n], methods: uMethods, cost: cost, replicate: c.replicate})
	}
	for _, c := range s.folds {
		cells = append(cells, cell{key: c.key(), reps: s.plan.foldReps, methods: fMethods, cost: float64(c.n), replicate: c.replicate})
	}
	for _, c := range s.classes {
		cells = append(cells, cell{key: c.key(), reps: s.plan.classReps[c.n], methods: cMethods, cost: 5 * float64(c.n), replicate: c.replicate})
	}
	for _, c := range s.ranks {
		cells = append(cells, cell{key: c.key(), reps: s.plan.rankReps[c.n], methods: rMethods, cost: 0.5 * float64(c.n), replicate: c.replicate})
	}
	for _, c := range s.metrics {
		cells = append(cells, cell{key: c.key(), reps: s.plan.metricReps[c.n], methods: mMethods, cost: 25 * float64(c.n), replicate: c.replicate})
	}
	for _, c := range s.poissons {
		cells = append(cells, cell{key: c.key(), reps: s.plan.poissonReps[c.n], methods: pMethods, cost: 20 * float64(c.n), replicate: c.replicate})
	}
	for _, c := range s.agrees {
		cells = append(cells, cell{key: c.key(), reps: s.plan.agreeReps[c.n], methods: aMethods, cost: 10 * float64(c.n), replicate: c.replicate})
	}
	for _, c := range s.margins {
		cells = append(cells, cell{key: c.key(), reps: s.plan.marginReps[c.n], methods: mgMethods, cost: 3 * float64(c.n), replicate: c.replicate})
	}
	for _, c := range s.seeds {
		cells = append(cells, cell{key: c.key(), reps: s.plan.seedReps, methods: sdMethods, cost: c.cost(), replicate: c.replicate})
	}
	if len(s.metrics) > 0 {
		metricTruths()
	}
	res := runCells(cells, workers, log)
	next := func(k int) []cellResult {
		r := res[:k]
		res = res[k:]
		return r
	}
	s.userRes = next(len(s.users))
	s.foldRes = next(len(s.folds))
	s.classRes = next(len(s.classes))
	s.rankRes = next(len(s.ranks))
	s.metricRes = next(len(s.metrics))
	s.poissonRes = next(len(s.poissons))
	s.agreeRes = next(len(s.agrees))
	s.marginRes = next(len(s.margins))
	s.seedRes = next(len(s.seeds))
}

// userResult returns the result of the per-user cell, and false when the
// study has no such cell.
func (s *study) userResult(shape string, f family, rho float64, n int) (cellResult, bool) {
	i := slices.IndexFunc(s.users, func(c userConfig) bool {
		return c.shape.name == shape && c.fam == f && c.rho == rho && c.n == n
	})
	if i < 0 {
		return cellResult{}, false
	}
	return s.userRes[i], true
}

func (s *study) foldResult(f family, n int) cellResult {
	return s.foldRes[slices.IndexFunc(s.folds, func(c foldConfig) bool { return c.fam == f && c.n == n })]
}

func (s *study) classResult(f family, rho float64, n int) cellResult {
	return s.classRes[slices.IndexFunc(s.classes, func(c classConfig) bool { return c.fam == f && c.rho == rho && c.n == n })]
}

func (s *study) rankResult(shape string, f family, rho float64, n int) cellResult {
	return s.rankRes[slices.IndexFunc(s.ranks, func(c rankConfig) bool {
		return c.shape.name == shape && c.fam == f && c.rho == rho && c.n == n
	})]
}

func (s *study) metricResult(f family, rho float64, n int) cellResult {
	return s.metricRes[slices.IndexFunc(s.metrics, func(c metricConfig) bool { return c.fam == f && c.rho == rho && c.n == n })]
}

// rejection is a tally's rejection rate with its 99 % interval.
func (t tally) rejection() rate { return clopperPearson(t.rejected, t.trials, 0.99) }

// coverage is a tally's coverage with its 99 % interval.
func (t tally) coverage() rate { return clopperPearson(t.covered, t.intervals, 0.99) }

// liberal reports whether a rejection rate under a true null is above
// alpha beyond the simulation's noise: its 99 % interval lies above alpha.
func (r rate) liberal() bool { return r.n > 0 && r.low > alpha }

// undercovers reports whether a coverage is below the confidence beyond
// the simulation's noise.
func (r rate) undercovers() bool { return r.n > 0 && r.high < confidence }

func nan() float64 { return math.NaN() }

// A replication's random stream for tests of single cells.
func replicationRNG(key string, rep int) *rand.Rand {
	return rand.New(rand.NewPCG(seedOf(key), uint64(rep)))
}
