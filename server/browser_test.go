package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
)

// chromium is Debian's Chromium, which the browser test drives.
const chromium = "/usr/bin/chromium"

// TestBrowser drives a real browser, headless Chromium, through the web
// view as a person would: it opens the server, gets the sign-in form, types
// a reader token, lands on the list of experiments, opens the experiment,
// finds every run in the leaderboard and in the critical-difference
// diagram, follows the history to a comparison's page, and signs out. It
// takes a full-page screenshot of each page into the test's temporary
// folder and, when VERDICT_SCREENSHOTS names a folder, there too, for a
// person to look at.
func TestBrowser(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("the browser test needs Chromium at %s (%v): apt-get install chromium", chromium, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1600, 1000),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium's sandbox refuses to run as root
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(ctx)
	defer cancelTab()
	// Chromium starts while the database and the server do: each takes
	// seconds.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx) }()

	ts := startServer(t, Config{})
	writer := ts.token(t, store.TokenWriter, "")
	runs := []string{"popularity", "item-knn", "mf-64"}
	ts.logRuns(t, writer, "movies", runs, 300)
	id := ts.recordComparison(t, writer, "movies", "popularity", "item-knn")
	recorded, err := ts.st.GetComparison(context.Background(), id)
	require.NoError(t, err)
	reader := ts.token(t, store.TokenReader, "")
	require.NoError(t, <-started, "start Chromium")

	shots := []string{t.TempDir()}
	if dir := os.Getenv("VERDICT_SCREENSHOTS"); dir != "" {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		shots = append(shots, dir)
	}
	screenshot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		require.NoError(t, err, "screenshot %s", name)
		for _, dir := range shots {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
		}
	}
	location := func() string {
		t.Helper()
		loc, err := chromedp.Run(ctx, chromedp.Location())
		require.NoError(t, err)
		return strings.TrimPrefix(loc, ts.url)
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		require.NoError(t, err, sel)
		return s
	}

	// Without a session, any page is the sign-in form.
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(ts.url+"/"))
	require.NoError(t, err)
	require.EqualValues(t, 401, resp.Status)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#token"))))
	require.Contains(t, text("h1"), "sign in")
	screenshot("1-sign-in")

	// Signing in lands on the list of experiments.
	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#token"), reader)))
	resp, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS("form.signin button")))
	require.NoError(t, err)
	require.EqualValues(t, 200, resp.Status)
	require.Equal(t, "/", location())
	require.Contains(t, text(".banner"), "Signed in as test-reader-")
	require.Contains(t, text("#experiments table"), "movies")
	screenshot("2-experiments")

	// The experiment's report names every run in its leaderboard and in
	// its critical-difference diagram.
	resp, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`#experiments a[href="/experiments/movies"]`)))
	require.NoError(t, err)
	require.EqualValues(t, 200, resp.Status)
	require.Equal(t, "/experiments/movies", location())
	board, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll("#leaderboard-1 tbody tr td:nth-child(2)"), td => td.textContent)`))
	require.NoError(t, err)
	require.ElementsMatch(t, runs, board, "the leaderboard's RUN column")
	svgs, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll("#leaderboard-1 figure svg"), svg => Array.from(svg.querySelectorAll("text"), x => x.textContent).join("\n"))`))
	require.NoError(t, err)
	require.Len(t, svgs, 3, "a forest plot, a critical-difference diagram and the values over time")
	var cd string
	for _, s := range svgs {
		if strings.Contains(s, "CD = ") {
			cd = s
		}
	}
	require.NotEmpty(t, cd, "a critical-difference diagram, with its CD bar:\n%s", strings.Join(svgs, "\n---\n"))
	for _, r := range runs {
		require.Contains(t, cd, r, "the critical-difference diagram names %s", r)
	}
	require.Contains(t, text(".banner"), "Signed in as")
	screenshot("3-experiment")

	// The history links to the comparison's page, which gives its verdict.
	href := fmt.Sprintf("/comparisons/%d", id)
	resp, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#history a[href="%s"]`, href))))
	require.NoError(t, err)
	require.EqualValues(t, 200, resp.Status)
	require.Equal(t, href, location())
	require.Equal(t, recorded.Verdict, text("p.verdict"))
	require.Contains(t, text("#result"), "item-knn")
	require.Contains(t, text("#result"), "popularity")
	screenshot("4-comparison")

	// Signing out ends the session: the next page is the sign-in form.
	resp, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(".banner button")))
	require.NoError(t, err)
	require.EqualValues(t, 401, resp.Status)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#token"))))
	resp, err = chromedp.Run(ctx, chromedp.NavigateResponse(ts.url+"/experiments/movies"))
	require.NoError(t, err)
	require.EqualValues(t, 401, resp.Status, "signed out, the report needs signing in again")
}
