package compare

import (
	"errors"
	"testing"

	"github.com/verdict-ml/verdict/request"
	"github.com/verdict-ml/verdict/stats"
)

// The declared defaults are the library's: a request that gives nothing
// compares as Options' zero value does.
func TestRequestDefaultsAreTheLibrarys(t *testing.T) {
	var r Request
	if err := request.Decode(request.Values{"baseline": {"a"}, "candidate": {"b"}}, &r); err != nil {
		t.Fatal(err)
	}
	o, gate, err := r.Options(true)
	if err != nil {
		t.Fatal(err)
	}
	// Resamples not given stays unset, as in the library: its default
	// (2000) applies, and the method may still be chosen by the number of
	// units (autoMethod), which a number given asks not to.
	want := Options{}.resolved()
	if o.Alpha != want.Alpha || o.Confidence != want.Confidence || o.Resamples != 0 || o.resamples() != want.Resamples || o.Seed != 0 ||
		o.Resampling != ResamplingAuto || o.Method != "" || o.Adjust != AdjustDefault || o.Rope != nil || o.FDR != nil || gate != NoGate || !o.Record {
		t.Fatalf("defaults: %+v, gate %q", o, gate)
	}
	var lb LeaderboardRequest
	if err := request.Decode(request.Values{"experiment": {"x"}, "metric": {"m"}}, &lb); err != nil {
		t.Fatal(err)
	}
	if q := lb.Query(); q.Options.Alpha != stats.DefaultAlpha || q.Options.Confidence != stats.DefaultConfidence || q.Options.Resamples != 0 {
		t.Fatalf("leaderboard defaults: %+v", q.Options)
	}
	r.Rope = new(float64)
	if o, _, _ := r.Options(false); o.DecideAt != stats.DefaultDecideAt {
		t.Fatalf("decide_at default %g, want %g", o.DecideAt, stats.DefaultDecideAt)
	}
	// The declared default of decide_at, fdr_alpha and resamples, which
	// the help shows, is the one applied.
	for _, f := range request.Fields(Request{}) {
		switch f.Name {
		case "resamples":
			if f.Default != "2000" || stats.DefaultResamples != 2000 {
				t.Errorf("resamples declares %s, the library applies %d", f.Default, stats.DefaultResamples)
			}
		case "decide_at":
			if f.Default != "0.95" || stats.DefaultDecideAt != 0.95 {
				t.Errorf("decide_at declares %s, the library applies %g", f.Default, stats.DefaultDecideAt)
			}
		case "fdr_alpha":
			if f.Default != "0.05" || stats.DefaultAlpha != 0.05 {
				t.Errorf("fdr_alpha declares %s, the library applies %g", f.Default, stats.DefaultAlpha)
			}
		}
	}
}

// Every rule between the fields of a comparison lives in Options, so every
// door refuses the same requests with the same words.
func TestRequestRules(t *testing.T) {
	half, ninety := 0.5, 0.9
	for _, c := range []struct {
		r      Request
		record bool
		want   string
	}{
		{Request{FDRAlpha: &ninety}, true, "fdr_alpha goes with fdr PROCEDURE, the online procedure whose false discovery rate it sets"},
		{Request{FDR: "lond"}, false, "fdr tests each metric as the next test of the experiment's recorded stream, so the comparison must be recorded"},
		{Request{FDR: "lond", Adjust: "holm"}, true, "fdr replaces adjust: the procedure controls the false discoveries over the whole history; give one"},
		{Request{DecideAt: &ninety}, true, "decide_at is the Bayesian correlated t's threshold, which needs rope R (or margin DELTA), the region of practical equivalence"},
		{Request{Rope: &half, DecideAt: &half, Statistics: Statistics{Alpha: 0.05}}, true, ""},
		{Request{Rope: &half, DecideAt: &ninety, Statistics: Statistics{Alpha: 1.5}}, true, "alpha must be in (0, 1), got 1.5"},
		{Request{Method: "bogus"}, true, "method \"bogus\": want " + MethodNames()},
	} {
		_, _, err := c.r.Options(c.record)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%+v: got %q, want %q", c.r, got, c.want)
		}
		var re *request.Error
		if err != nil && !errors.Is(err, ErrInvalid) && !errors.As(err, &re) {
			t.Errorf("%q is neither ErrInvalid nor a request error", got)
		}
	}
}
