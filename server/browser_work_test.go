package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/request"
	"github.com/verdict-ml/verdict/runfilter"
	"github.com/verdict-ml/verdict/store"
)

// browserWindow is the width every page's tables must fit.
const browserWindow = 1280

// browser is a headless Chromium tab on a test server, with the helpers
// the browser tests share.
type browser struct {
	t     *testing.T
	ctx   context.Context
	ts    *testServer
	shots []string
}

// newBrowser starts Chromium in a window 1,280 pixels wide while setup
// starts the server and fills it.
func newBrowser(t *testing.T, setup func() *testServer) *browser {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("the browser test needs Chromium at %s (%v): apt-get install chromium", chromium, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(browserWindow, 1000),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium's sandbox refuses to run as root
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	t.Cleanup(cancel)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(ctx)
	t.Cleanup(cancelTab)
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx) }()
	ts := setup()
	require.NoError(t, <-started, "start Chromium")
	b := &browser{t: t, ctx: ctx, ts: ts, shots: []string{t.TempDir()}}
	if dir := os.Getenv("VERDICT_SCREENSHOTS"); dir != "" {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		b.shots = append(b.shots, dir)
	}
	return b
}

func (b *browser) screenshot(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	require.NoError(b.t, err, "screenshot %s", name)
	for _, dir := range b.shots {
		require.NoError(b.t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
	}
}

func (b *browser) location() string {
	b.t.Helper()
	loc, err := chromedp.Run(b.ctx, chromedp.Location())
	require.NoError(b.t, err)
	return strings.TrimPrefix(loc, b.ts.url)
}

func (b *browser) text(sel string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(sel)))
	require.NoError(b.t, err, sel)
	return s
}

// open navigates to path and requires status.
func (b *browser) open(path string, status int) {
	b.t.Helper()
	resp, err := chromedp.Run(b.ctx, chromedp.NavigateResponse(b.ts.url+path))
	require.NoError(b.t, err, path)
	require.EqualValues(b.t, status, resp.Status, path)
}

// follow runs an action that navigates (a click, a submit) and requires
// the new page's status.
func (b *browser) follow(status int, action chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	resp, err := chromedp.RunResponse(b.ctx, action)
	require.NoError(b.t, err)
	require.EqualValues(b.t, status, resp.Status, b.location())
}

func (b *browser) strings(js string) []string {
	b.t.Helper()
	out, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](js))
	require.NoError(b.t, err, js)
	return out
}

func (b *browser) signIn(path, token string) {
	b.t.Helper()
	b.open(path, http.StatusUnauthorized)
	require.NoError(b.t, chromedp.Do(b.ctx, chromedp.SendKeys(chromedp.CSS("#token"), token)))
	b.follow(http.StatusOK, chromedp.Click(chromedp.CSS("form.signin button")))
	require.Equal(b.t, path, b.location())
}

// requireFits requires that no table of the page, and not the page, is
// wider than the window.
func (b *browser) requireFits() {
	b.t.Helper()
	widths, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]float64](`[document.documentElement.scrollWidth].concat(
		Array.from(document.querySelectorAll("table"), t => Math.max(t.scrollWidth, t.getBoundingClientRect().right)))`))
	require.NoError(b.t, err)
	require.Greater(b.t, len(widths), 1, "%s has tables", b.location())
	for i, w := range widths {
		require.LessOrEqual(b.t, w, float64(browserWindow), "%s: %s is %v px wide", b.location(), map[bool]string{true: "the page", false: fmt.Sprintf("table %d", i)}[i == 0], w)
	}
}

// logRun logs one CSV evaluation of ndcg@10 of run over users users, each
// user's value base plus shift and noise, with the run's params and tags.
func (ts *testServer) logRun(t *testing.T, token, experiment, run string, shift float64, users int, params, tags []string, extra ...string) int64 {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, uint64(len(run))))
	var b strings.Builder
	b.WriteString("sample_id,ndcg@10\n")
	for u := range users {
		base := float64((u*37)%100) / 100
		fmt.Fprintf(&b, "user-%03d,%.4f\n", u, min(max(0.4*base+0.1+shift+0.05*rng.NormFloat64(), 0), 1))
	}
	q := url.Values{"experiment": {experiment}, "run": {run}, "eval_set": {"test"}, "param": params, "tag": tags}
	for i := 0; i+1 < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	status, body := ts.do(t, "POST", "/api/v1/evaluations?"+q.Encode(), token, strings.NewReader(b.String()), "Content-Type", "text/csv")
	require.Equal(t, http.StatusCreated, status, string(body))
	var got struct {
		ID int64 `json:"evaluation_id"`
	}
	require.NoError(t, jsonUnmarshal(body, &got))
	return got.ID
}

// TestBrowserWork works in the web view as a person would, in a window
// 1,280 pixels wide: it searches, sorts and pages an experiment's runs,
// picks two and reads their comparison (verdict, means, the histogram of
// per-user differences and the users who moved most both ways), records
// it, opens a run's page and compares two of its evaluations, and checks
// on every page that no table is wider than the window.
func TestBrowserWork(t *testing.T) {
	ctx := context.Background()
	var writer string
	var mfFirst, mfSecond int64
	b := newBrowser(t, func() *testServer {
		ts := startServer(t, Config{})
		writer = ts.token(t, store.TokenWriter, "")
		ts.logRun(t, writer, "movies", "popularity", 0, 300, []string{"lr=0.1", "model=pop"}, nil)
		ts.logRun(t, writer, "movies", "item-knn", 0.02, 300, []string{"lr=0.01", "model=knn"}, []string{"nightly"})
		mfFirst = ts.logRun(t, writer, "movies", "mf-64", 0.01, 300, []string{"lr=0.001", "model=mf", "factors=64"}, []string{"nightly"})
		mfSecond = ts.logRun(t, writer, "movies", "mf-64", 0.04, 300, []string{"lr=0.001", "model=mf", "factors=64"}, []string{"nightly"})
		for step, shift := range []float64{0, 0.03, 0.05} {
			ts.logRun(t, writer, "training", "sasrec", shift, 300, []string{"lr=0.001"}, nil, "step", strconv.Itoa(10*(step+1)))
		}
		return ts
	})
	ts := b.ts
	mean := func(run string) string {
		e, err := ts.st.LatestEvaluation(ctx, "movies", run, "")
		require.NoError(t, err)
		return report.Num(e.Aggregates["ndcg@10"])
	}
	rows := func() [][2]string {
		t.Helper()
		cells := b.strings(`Array.from(document.querySelectorAll("#runs-table tbody tr"), tr => tr.querySelector("td.run").textContent + "\t" + tr.querySelector("td.metric").textContent)`)
		var out [][2]string
		for _, c := range cells {
			name, value, _ := strings.Cut(c, "\t")
			out = append(out, [2]string{name, value})
		}
		return out
	}

	// The runs table: a column per metric, each run's newest mean.
	b.signIn("/experiments/movies/runs", writer)
	header := b.strings(`Array.from(document.querySelectorAll("#runs-table thead th"), th => th.textContent.trim())`)
	require.Contains(t, header, "ndcg@10", "a column per metric: %v", header)
	want := map[string]string{}
	for _, run := range []string{"popularity", "item-knn", "mf-64"} {
		want[run] = mean(run)
	}
	got := rows()
	require.Len(t, got, 3)
	for _, r := range got {
		require.Equal(t, want[r[0]], r[1], "%s's ndcg@10 is its newest evaluation's mean", r[0])
	}
	require.NotEqual(t, want["mf-64"], func() string {
		e, err := ts.st.GetEvaluation(ctx, mfFirst)
		require.NoError(t, err)
		return report.Num(e.Aggregates["ndcg@10"])
	}(), "mf-64's two evaluations differ, so the table shows the newest")
	b.requireFits()
	b.screenshot("web-runs")

	// Sorting: the heading orders by the metric, best first, then the
	// other way.
	byMean := []string{"popularity", "item-knn", "mf-64"}
	slices.SortFunc(byMean, func(x, y string) int {
		a, _ := strconv.ParseFloat(want[x], 64)
		c, _ := strconv.ParseFloat(want[y], 64)
		return -compareFloat(a, c)
	})
	b.follow(http.StatusOK, chromedp.Click(chromedp.CSS(`#runs-table thead a[href*="order_by=metrics.ndcg%4010"]`)))
	require.Contains(t, b.location(), "order_by=metrics.ndcg%4010+desc")
	require.Equal(t, byMean, names(rows()), "sorted by ndcg@10, best first")
	b.follow(http.StatusOK, chromedp.Click(chromedp.CSS(`#runs-table thead a[href*="order_by=metrics.ndcg%4010"]`)))
	require.Equal(t, []string{byMean[2], byMean[1], byMean[0]}, names(rows()), "and the other way")

	// Filtering with the run-search language.
	require.NoError(t, chromedp.Do(b.ctx, chromedp.SetValue(chromedp.CSS("#filter"), "params.lr < 0.05 AND tags.nightly = 'true'")))
	b.follow(http.StatusOK, chromedp.Submit(chromedp.CSS("#filter")))
	require.ElementsMatch(t, []string{"item-knn", "mf-64"}, names(rows()), "the runs with lr under 0.05, tagged nightly")
	require.Contains(t, b.text("#runs-table tbody"), "lr=0.001")
	// A bad filter: the page again, with the parser's message.
	require.NoError(t, chromedp.Do(b.ctx, chromedp.SetValue(chromedp.CSS("#filter"), "params.lr <")))
	b.follow(http.StatusOK, chromedp.Submit(chromedp.CSS("#filter")))
	_, parseErr := runfilter.Parse("params.lr <")
	require.Error(t, parseErr)
	require.Equal(t, parseErr.Error(), b.text("#filter-problem"))
	require.Empty(t, rows())

	// Paging: two runs, then a link to twice as many.
	b.open("/experiments/movies/runs?limit=2&order_by=run", http.StatusOK)
	require.Equal(t, []string{"item-knn", "mf-64"}, names(rows()))
	b.follow(http.StatusOK, chromedp.Click(chromedp.CSS("#show-more")))
	require.Contains(t, b.location(), "limit=4")
	require.Equal(t, []string{"item-knn", "mf-64", "popularity"}, names(rows()))
	require.Empty(t, b.strings(`Array.from(document.querySelectorAll("#show-more"), a => a.href)`), "no more to show")

	// Picking two runs compares them, unrecorded: the verdict is the
	// one the library gives, and the means are the runs'.
	require.NoError(t, chromedp.Do(b.ctx, chromedp.Click(chromedp.CSS(`input[name=baseline][value="popularity"]`))))
	require.NoError(t, chromedp.Do(b.ctx, chromedp.Click(chromedp.CSS(`input[name=candidate][value="item-knn"]`))))
	b.follow(http.StatusOK, chromedp.Click(chromedp.CSS("#compare-runs")))
	loc, err := url.Parse(b.location())
	require.NoError(t, err)
	require.Equal(t, "/experiments/movies/compare", loc.Path)
	require.Equal(t, url.Values{"baseline": {"popularity"}, "candidate": {"item-knn"}}, loc.Query())
	var req compare.Request
	require.NoError(t, request.Decode(request.Values{"experiment": {"movies"}, "baseline": {"popularity"}, "candidate": {"item-knn"}}, &req))
	res, err := req.Run(ctx, ts.st, nil, false, report.Verdict)
	require.NoError(t, err)
	require.Len(t, res.Metrics, 1)
	require.Equal(t, res.Metrics[0].Verdict, b.text("#verdict p.verdict"))
	result := b.text("#result table")
	require.Contains(t, result, want["popularity"])
	require.Contains(t, result, want["item-knn"])
	history, err := ts.st.History(ctx, store.HistoryFilter{Experiment: "movies"})
	require.NoError(t, err)
	require.Empty(t, history, "a comparison read is not recorded")

	// The histogram of per-user differences and the users who moved
	// most, both ways, as verdict diff gives them.
	requireMovers := func() {
		t.Helper()
		base, err := ts.st.LatestEvaluation(ctx, "movies", "popularity", "")
		require.NoError(t, err)
		cand, err := ts.st.LatestEvaluation(ctx, "movies", "item-knn", "")
		require.NoError(t, err)
		svg := b.strings(`Array.from(document.querySelectorAll("#differences figure svg"), svg => Array.from(svg.querySelectorAll("text"), x => x.textContent).join(" "))`)
		require.Len(t, svg, 1, "a histogram")
		require.Contains(t, svg[0], "users")
		require.Contains(t, svg[0], "difference in ndcg@10")
		for _, best := range []bool{false, true} {
			d, err := compare.Diff(ctx, ts.st, base, cand, compare.DiffQuery{Metric: "ndcg@10", N: 10, Best: best})
			require.NoError(t, err)
			var wantRows []string
			var diffs []float64
			for _, r := range d.Top {
				diffs = append(diffs, r.Difference)
			}
			for i, r := range d.Top {
				wantRows = append(wantRows, r.SampleID+" "+report.Nums(diffs, true)[i])
			}
			sel := map[bool]string{false: "#worst", true: "#best"}[best]
			gotRows := b.strings(`Array.from(document.querySelectorAll("` + sel + ` tbody tr"), tr => tr.cells[0].textContent + " " + tr.cells[3].textContent)`)
			require.Equal(t, wantRows, gotRows, "%s: the users and their differences", sel)
		}
	}
	requireMovers()
	b.requireFits()

	// A writer records it, and lands on the recorded comparison's page.
	b.follow(http.StatusOK, chromedp.Click(chromedp.CSS("#record")))
	history, err = ts.st.History(ctx, store.HistoryFilter{Experiment: "movies"})
	require.NoError(t, err)
	require.Len(t, history, 1, "recorded")
	require.Equal(t, fmt.Sprintf("/comparisons/%d", history[0].ID), b.location())
	require.Equal(t, history[0].Verdict, b.text("p.verdict"))
	require.Equal(t, res.Metrics[0].Verdict, history[0].Verdict)
	requireMovers()
	b.requireFits()
	b.screenshot("web-comparison")

	// A run's page: params, tags, evaluations; two of its evaluations
	// compared.
	b.open("/experiments/movies/runs", http.StatusOK)
	b.follow(http.StatusOK, chromedp.Click(chromedp.CSS(`#runs-table a[href="/experiments/movies/runs/mf-64"]`)))
	run := b.text("#run")
	for _, s := range []string{"factors", "64", "lr", "0.001", "model", "mf", "nightly"} {
		require.Contains(t, run, s)
	}
	evals := b.strings(`Array.from(document.querySelectorAll("#evaluations tbody tr"), tr => tr.cells[0].textContent)`)
	require.Equal(t, []string{strconv.FormatInt(mfSecond, 10), strconv.FormatInt(mfFirst, 10)}, evals, "newest first")
	require.Contains(t, b.text("#evaluations tbody"), mean("mf-64"))
	b.requireFits()
	b.screenshot("web-run")
	b.follow(http.StatusOK, chromedp.Click(chromedp.CSS("#compare button")))
	require.Contains(t, b.location(), fmt.Sprintf("baseline=%d", mfFirst))
	require.Contains(t, b.text("#verdict p.verdict"), "mf-64")

	// A run logged with steps: its evaluations show them, its curve
	// draws the mean at each step with its interval, and two steps are
	// compared as RUN@STEP.
	b.open("/experiments/training/runs/sasrec", http.StatusOK)
	steps := b.strings(`Array.from(document.querySelectorAll("#evaluations tbody tr"), tr => tr.cells[2].textContent)`)
	require.ElementsMatch(t, []string{"10", "20", "30"}, steps, "the STEP column")
	var creq compare.CurveRequest
	require.NoError(t, request.Decode(request.Values{"experiment": {"training"}, "run": {"sasrec"}, "metric": {"ndcg@10"}, "eval_set": {"test"}}, &creq))
	curve, err := compare.Curve(ctx, ts.st, creq)
	require.NoError(t, err)
	require.Len(t, curve.Points, 3)
	svg := b.strings(`Array.from(document.querySelectorAll("#curves figure svg"), svg => Array.from(svg.querySelectorAll("text"), x => x.textContent).join(" "))`)
	require.Len(t, svg, 1, "a curve")
	require.Contains(t, svg[0], "ndcg@10 on test by step")
	curveRows := b.strings(`Array.from(document.querySelectorAll("#curves tbody tr"), tr => tr.cells[1].textContent + " " + tr.cells[2].textContent)`)
	var wantCurve []string
	for _, p := range curve.Points {
		wantCurve = append(wantCurve, fmt.Sprintf("%d %s", p.Step, report.Interval(p.Mean, p.Low, p.High, false)))
	}
	require.Equal(t, wantCurve, curveRows, "each step's mean and interval")
	b.requireFits()
	b.screenshot("web-run-steps")
	b.follow(http.StatusOK, chromedp.Click(chromedp.CSS("#compare button")))
	loc, err = url.Parse(b.location())
	require.NoError(t, err)
	require.Equal(t, url.Values{"baseline": {"sasrec@10"}, "candidate": {"sasrec@30"}}, loc.Query())
	require.Contains(t, b.text("#verdict p.verdict"), "sasrec")
	require.Contains(t, b.text("#worst tbody"), "user-")

	// The experiment's report, with its history's verdicts, fits too;
	// its runs are the table to work in.
	b.open("/experiments/movies", http.StatusOK)
	require.ElementsMatch(t, []string{"popularity", "item-knn", "mf-64"}, names(rows()))
	b.requireFits()

	// A run that does not exist: the form to pick two again, with the
	// problem.
	b.open("/experiments/movies/compare?baseline=popularity&candidate=nothing", http.StatusNotFound)
	require.Contains(t, b.text("#compare-problem"), "nothing")
}

func names(rows [][2]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r[0])
	}
	return out
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
