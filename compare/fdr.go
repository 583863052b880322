package compare

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// FDR asks that a comparison's metrics be tested under an online FDR
// procedure over its experiment's comparison history, rather than each at
// a fixed alpha: every test the history records under the procedure is one
// test of a stream whose false discovery rate the procedure keeps at or
// below Alpha (see stats.OnlineFDR).
type FDR struct {
	// Method is one of stats.OnlineFDRMethods; "" means lond-dep, which
	// holds under arbitrary dependence between the tests.
	Method string
	// Alpha is the target FDR (0 means 0.05), W0 the initial wealth of
	// the LORD procedures (0 means Alpha/10).
	Alpha, W0 float64
}

func (f *FDR) options() stats.OnlineFDROptions {
	o := stats.OnlineFDROptions{Method: cmp.Or(f.Method, stats.OnlineLONDDep), Alpha: cmp.Or(f.Alpha, stats.DefaultAlpha)}
	o.W0 = f.W0
	if o.W0 == 0 && (o.Method == stats.OnlineLORDDep || o.Method == stats.OnlineLORDPlusPlus) {
		o.W0 = o.Alpha / 10
	}
	return o
}

// FDRResult is a metric's test in its experiment's online FDR stream.
type FDRResult struct {
	Method string `json:"method"`
	// Alpha is the target FDR of the stream.
	Alpha float64 `json:"fdr"`
	// Test is the test's 1-based position in the experiment's stream.
	Test int `json:"test"`
	// Level is what the procedure held the p-value to; it replaces alpha
	// in the decision rule.
	Level    float64 `json:"level"`
	Rejected bool    `json:"rejected"`
	// WealthBefore and Wealth are the stream's alpha-wealth before and
	// after the test.
	WealthBefore float64 `json:"wealth_before"`
	Wealth       float64 `json:"wealth"`
}

// spendFDR tests each metric's p-value, in order, as the next tests of the
// experiment's online FDR stream: it locks the experiment's ledger in tx,
// sets each metric's FDR and Alpha (its level), and saves the new state in
// tx, so that the comparison recorded with it and the wealth it spent
// commit together, and a concurrent comparison waits for both.
func spendFDR(ctx context.Context, tx *store.Tx, c *Comparison, f *FDR) error {
	o := f.options()
	fresh, err := stats.NewOnlineFDRState(o)
	if err != nil {
		return invalidf("--fdr: %v", err)
	}
	freshJSON, err := json.Marshal(fresh)
	if err != nil {
		return err
	}
	experiment := c.BaselineEval.Experiment
	l, err := tx.LockLedger(ctx, experiment, o.Method, o.Alpha, o.W0, freshJSON)
	if err != nil {
		return err
	}
	if l.Method != o.Method || l.Alpha != o.Alpha || l.W0 != o.W0 {
		return invalidf("experiment %q's history is tested under %s at FDR %g (w0 %g), %d tests so far; a second procedure would start a stream of its own and void the guarantee of both: use the ledger's",
			experiment, l.Method, l.Alpha, l.W0, l.Tests)
	}
	var st stats.OnlineFDRState
	if err := json.Unmarshal(l.State, &st); err != nil {
		return fmt.Errorf("online FDR ledger of experiment %q: %w", experiment, err)
	}
	for _, r := range c.Metrics {
		test, next, err := st.Next(r.PValue, o)
		if err != nil {
			return fmt.Errorf("%s: %w", r.Metric, err)
		}
		st = next
		r.FDR = &FDRResult{Method: o.Method, Alpha: o.Alpha, Test: st.Tests, Level: test.Level, Rejected: test.Rejected,
			WealthBefore: test.WealthBefore, Wealth: test.Wealth}
		r.Alpha = test.Level
	}
	if l.State, err = json.Marshal(st); err != nil {
		return err
	}
	l.Tests = st.Tests
	return tx.SaveLedger(ctx, l)
}

// fdrRecord is the history's record of r's online test, or nil.
func fdrRecord(r *MetricResult) *store.FDRRecord {
	if r.FDR == nil {
		return nil
	}
	f := r.FDR
	return &store.FDRRecord{Method: f.Method, Test: f.Test, Level: f.Level, Rejected: f.Rejected,
		WealthBefore: f.WealthBefore, WealthAfter: f.Wealth}
}

// checkFDR refuses what cannot go with an online FDR procedure.
func checkFDR(o Options) error {
	if o.FDR == nil {
		return nil
	}
	if !o.Record {
		return invalidf("an online FDR procedure spends the experiment's alpha-wealth, so the comparison must be recorded")
	}
	if o.Adjust != AdjustDefault && o.Adjust != AdjustNone {
		return invalidf("an online FDR procedure controls the error rate over every test it sees, these metrics included; it takes no %s adjustment", o.Adjust)
	}
	_, err := stats.NewOnlineFDRState(o.FDR.options())
	if err != nil {
		return invalidf("%v", err)
	}
	return nil
}

// LedgerSummary is where an experiment's online FDR stream stands.
type LedgerSummary struct {
	Experiment string  `json:"experiment"`
	Method     string  `json:"method"`
	Alpha      float64 `json:"fdr"`
	W0         float64 `json:"w0"`
	Tests      int     `json:"tests"`
	Rejections int     `json:"rejections"`
	// Wealth is the alpha-wealth left, and NextLevel the level the next
	// test will be held to.
	Wealth    float64 `json:"wealth"`
	NextLevel float64 `json:"next_level"`
}

// Ledger summarises experiment's online FDR stream; store.ErrNotFound
// when its history was never tested under a procedure.
func Ledger(ctx context.Context, st *store.Store, experiment string) (*LedgerSummary, error) {
	l, err := st.GetLedger(ctx, experiment)
	if err != nil {
		return nil, err
	}
	var s stats.OnlineFDRState
	if err := json.Unmarshal(l.State, &s); err != nil {
		return nil, fmt.Errorf("online FDR ledger of experiment %q: %w", experiment, err)
	}
	o := stats.OnlineFDROptions{Method: l.Method, Alpha: l.Alpha, W0: l.W0}
	next, err := s.Level(o)
	if err != nil {
		return nil, err
	}
	return &LedgerSummary{Experiment: experiment, Method: l.Method, Alpha: l.Alpha, W0: l.W0, Tests: s.Tests,
		Rejections: len(s.Rejections), Wealth: s.Wealth, NextLevel: next}, nil
}
