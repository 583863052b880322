package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/request"
	"github.com/verdict-ml/verdict/scores"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// A door is one operation as the command line and the API offer it.
type door struct {
	req     any        // the request's declaration
	command []string   // the command line's command
	method  string     // the API's route
	path    string     //
	base    url.Values // what every call gives; a field's sample adds to it
	cliOnly []string   // the command line's own flags: --format, --no-record
	// readOnly: the same input must give the same JSON at both doors (a
	// write is checked by its fields' presence only).
	readOnly bool
}

// samples are a value of every field the doors share, chosen so that it
// changes the answer (or is refused, at both doors alike), on the data
// TestParity logs. A field's sample may also replace base values.
var samples = map[string]url.Values{
	"experiment":              {"experiment": {"p"}},
	"eval_set":                {"eval_set": {"test"}},
	"baseline":                {"baseline": {"c"}},
	"candidate":               {"candidate": {"a"}},
	"metric":                  {"metric": {"m2"}},
	"method":                  {"method": {"t"}},
	"adjust":                  {"adjust": {"bonferroni"}},
	"alpha":                   {"alpha": {"0.2"}},
	"confidence":              {"confidence": {"0.8"}},
	"resamples":               {"resamples": {"300"}},
	"seed":                    {"seed": {"7"}},
	"resampling":              {"resampling": {"poisson"}},
	"no_stratify":             {"no_stratify": {"true"}},
	"margin":                  {"margin": {"0.01"}},
	"rope":                    {"rope": {"0.01"}, "experiment": {"kf"}, "baseline": {"x"}, "candidate": {"y"}, "run": {"x", "y"}},
	"decide_at":               {"decide_at": {"0.9"}, "rope": {"0.01"}, "experiment": {"kf"}, "baseline": {"x"}, "candidate": {"y"}},
	"allow_different_targets": {"allow_different_targets": {"true"}},
	"fdr":                     {"fdr": {"lond"}},
	"fdr_alpha":               {"fdr_alpha": {"0.1"}},
	"fail_on":                 {"fail_on": {"regression"}},
	"run":                     {"run": {"a", "b", "c"}},
	"control":                 {"control": {"b"}},
	"across_eval_sets":        {"across_eval_sets": {"true"}},
	"limit":                   {"limit": {"1"}},
	"worst":                   {"worst": {"3"}},
	"best":                    {"best": {"2"}},
	"winner":                  {"winner": {"baseline"}},
	"distinguishable":         {"distinguishable": {"true"}},
	"since":                   {"since": {"30d"}},
	"filter":                  {"filter": {"params.lr < 0.05"}},
	"order_by":                {"order_by": {"params.lr desc"}},
	"metrics":                 {"metrics": {"m1"}},
}

// TestParity enumerates every field of every request the command line and
// the API share, from the requests' declarations: each reaches the
// command's flags (or arguments) and the route's parameters in
// openapi.json, with the same type, default and choices; and, for reads,
// the same input gives the same JSON at both doors, or the same refusal.
func TestParity(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewDatabase(t)
	// Experiment p: runs a, b, c of 40 users on set test, metrics m1 and
	// m2 (b a little worse than a on m1, c much worse), run params lr.
	for i, run := range []string{"a", "b", "c"} {
		var b strings.Builder
		b.WriteString("sample_id,m1,m2\n")
		for u := range 40 {
			m1 := float64((u*7+3)%11) / 10
			if u%4 == 0 {
				m1 -= 0.05 * float64(i*i)
			}
			fmt.Fprintf(&b, "u%02d,%g,%g\n", u, m1, float64((u*5+i)%9)/8)
		}
		path := writeFile(t, run+".csv", b.String())
		res := runVerdict(t, dbURL, "log", "-e", "p", "-r", run, "-s", "test", "--param", fmt.Sprintf("lr=%g", 0.01*float64(i+1)), path)
		require.Equal(t, 0, res.code, res.stderr)
	}
	// Experiment kf: runs x and y, 5-fold, one unit per fold.
	for i, run := range []string{"x", "y"} {
		var b strings.Builder
		b.WriteString("sample_id,acc\n")
		for f := range 5 {
			fmt.Fprintf(&b, "fold_%d,%g\n", f, 0.8+0.01*float64((f*3+i)%5))
		}
		path := writeFile(t, run+".csv", b.String())
		res := runVerdict(t, dbURL, "log", "-e", "kf", "-r", run, "-s", "cv", "--protocol", "kfold", "--folds", "5", "--n-train", "80", "--n-test", "20", path)
		require.Equal(t, 0, res.code, res.stderr)
	}
	// Experiment st: runs s1 and s2 logged at steps 1, 2 and 3, for
	// curves.
	for i, run := range []string{"s1", "s2"} {
		for step := 1; step <= 3; step++ {
			var b strings.Builder
			b.WriteString("sample_id,m1\n")
			for u := range 10 {
				fmt.Fprintf(&b, "u%d,%g\n", u, float64((u*3+i+step)%8)/8)
			}
			path := writeFile(t, fmt.Sprintf("%s-%d.csv", run, step), b.String())
			res := runVerdict(t, dbURL, "log", "-e", "st", "-r", run, "-s", "test", "--step", fmt.Sprint(step), path)
			require.Equal(t, 0, res.code, res.stderr)
		}
	}
	// A history to list.
	for _, pair := range [][2]string{{"a", "b"}, {"a", "c"}} {
		res := runVerdict(t, dbURL, "compare", "-e", "p", "--seed", "1", pair[0], pair[1])
		require.Equal(t, 0, res.code, res.stderr)
	}

	get := apiOf(t, dbURL)
	status, spec := get("GET", "/api/v1/openapi.json", nil)
	require.Equal(t, 200, status)
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name     string         `json:"name"`
				In       string         `json:"in"`
				Required bool           `json:"required"`
				Schema   map[string]any `json:"schema"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(spec, &doc))

	// A curve at both doors: s1's values of m1 at step 1 are
	// (3u + 1) mod 8 / 8 for users 0 to 9, a mean of 33/80; the bounds are
	// the same bootstrap with the same seed.
	res := runVerdict(t, dbURL, "curve", "-e", "st", "-r", "s1", "-m", "m1", "--seed", "5", "--format", "json")
	require.Equal(t, 0, res.code, res.stderr)
	status, body := get("GET", "/api/v1/curve", url.Values{"experiment": {"st"}, "run": {"s1"}, "metric": {"m1"}, "seed": {"5"}})
	require.Equal(t, 200, status, string(body))
	var cliCurve, apiCurve compare.TrainingCurve
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &cliCurve))
	require.NoError(t, json.Unmarshal(body, &apiCurve))
	require.Len(t, cliCurve.Points, 3)
	require.InDelta(t, 33.0/80, cliCurve.Points[0].Mean, 1e-7)
	require.Less(t, cliCurve.Points[0].Low, cliCurve.Points[0].Mean)
	require.Equal(t, cliCurve.Points, apiCurve.Points)

	doors := []door{
		{req: compare.Request{}, command: []string{"compare"}, method: "GET", path: "/api/v1/compare", readOnly: true,
			base: url.Values{"experiment": {"p"}, "baseline": {"a"}, "candidate": {"b"}}, cliOnly: []string{"format", "plot", "no-record"}},
		{req: compare.RankRequest{}, command: []string{"rank"}, method: "GET", path: "/api/v1/rank", readOnly: true,
			base: url.Values{"experiment": {"p"}, "run": {"a", "b"}, "metric": {"m1"}}, cliOnly: []string{"format", "plot", "no-record"}},
		{req: compare.LeaderboardRequest{}, command: []string{"leaderboard"}, method: "GET", path: "/api/v1/leaderboard", readOnly: true,
			base: url.Values{"experiment": {"p"}, "metric": {"m1"}}, cliOnly: []string{"format", "plot"}},
		{req: compare.DiffRequest{}, command: []string{"diff"}, method: "GET", path: "/api/v1/diff", readOnly: true,
			base: url.Values{"experiment": {"p"}, "baseline": {"a"}, "candidate": {"b"}, "metric": {"m1"}}, cliOnly: []string{"format", "plot", "out"}},
		{req: compare.HistoryQuery{}, command: []string{"history"}, method: "GET", path: "/api/v1/history", readOnly: true,
			base: url.Values{}, cliOnly: []string{"format", "plot", "confidence", "resamples", "seed"}},
		{req: compare.CurveRequest{}, command: []string{"curve"}, method: "GET", path: "/api/v1/curve", readOnly: true,
			base: url.Values{"experiment": {"st"}, "run": {"s1", "s2"}, "metric": {"m1"}}, cliOnly: []string{"format", "plot"}},
		{req: store.RunQuery{}, command: []string{"runs"}, method: "GET", path: "/api/v1/runs", readOnly: true,
			base: url.Values{}, cliOnly: []string{"format"}},
		{req: scores.LogRequest{}, command: []string{"log"}, method: "POST", path: "/api/v1/evaluations",
			cliOnly: []string{"format", "params-file", "idempotency-key", "connections", "labels", "predictions"}},
		{req: evaluate.Request{}, command: []string{"evaluate"}, method: "POST", path: "/api/v1/evaluate",
			cliOnly: []string{"format", "params-file", "idempotency-key", "connections", "items", "scores", "targets", "sample-ids", "trec-run",
				"trec-qrels", "predictions", "per-user-out", "progress", "quiet", "q", "log-every", "log-format"}},
	}
	app := newApp(io.Discard, io.Discard)
	for _, d := range doors {
		name := fmt.Sprintf("%T", d.req)
		t.Run(name, func(t *testing.T) {
			cmd := app.Command(d.command[0])
			require.NotNil(t, cmd, "command %s", d.command[0])
			flags := map[string]bool{}
			for _, fl := range cmd.Flags {
				for _, n := range fl.Names() {
					flags[n] = true
				}
			}
			params := map[string]map[string]any{}
			for _, p := range doc.Paths[d.path][strings.ToLower(d.method)].Parameters {
				if p.In == "query" {
					params[p.Name] = p.Schema
				}
			}
			fields := request.Fields(d.req)
			declared := map[string]bool{}
			for _, f := range fields {
				declared[f.Flag()] = true
				declared[f.Name] = true
				schema, ok := params[f.Name]
				require.True(t, ok, "%s: field %s is not a parameter of %s %s", name, f.Name, d.method, d.path)
				item := schema
				if f.Repeat {
					item, _ = schema["items"].(map[string]any)
				}
				require.Equal(t, string(f.Kind), item["type"], "%s: %s's type", name, f.Name)
				if f.Default != "" {
					require.Equal(t, f.Default, fmt.Sprint(schema["default"]), "%s: %s's default", name, f.Name)
				}
				if f.Choices != nil {
					require.ElementsMatch(t, f.Choices, item["enum"], "%s: %s's choices", name, f.Name)
				}
				if f.Pos == "" && !f.APIOnly {
					require.True(t, flags[f.Flag()], "%s: field %s has no flag --%s", name, f.Name, f.Flag())
				}
			}
			for p := range params {
				require.True(t, declared[p], "%s %s: parameter %s is not a field of %s", d.method, d.path, p, name)
			}
			for n := range flags {
				if n == "help" || n == "h" || slices.Contains(d.cliOnly, n) || declared[n] {
					continue
				}
				short := slices.ContainsFunc(fields, func(f request.Field) bool { return f.Short == n })
				require.True(t, short, "%s: flag --%s is neither a field nor a declared command-line-only flag", d.command[0], n)
			}
			if !d.readOnly {
				return
			}
			for _, f := range fields {
				sample, ok := samples[f.Name]
				if f.Kind == request.Boolean {
					// A switch's sample is on (fdr is a procedure's name to
					// compare, but a switch to history).
					sample, ok = url.Values{f.Name: {"true"}}, true
				}
				require.True(t, ok, "no sample value for %s", f.Name)
				q := url.Values{}
				for k, v := range d.base {
					q[k] = v
				}
				for k, v := range sample {
					if k == f.Name || q.Has(k) || slices.ContainsFunc(fields, func(g request.Field) bool { return g.Name == k }) {
						q[k] = v
					}
				}
				args := cliArgs(d, fields, q)
				res := runVerdict(t, dbURL, args...)
				status, body := get(d.method, d.path, q)
				what := fmt.Sprintf("%s with %s: verdict %s → exit %d %s; API %s?%s → %d %s", name, f.Name, strings.Join(args, " "), res.code, res.stderr, d.path, q.Encode(), status, body)
				if res.code == exitGate {
					// The gate failed: the command line says so by its exit
					// status, the API by fails_gate, and both answer.
					require.Contains(t, string(body), `"fails_gate": true`, what)
				} else if res.code != 0 {
					require.NotEqual(t, 200, status, what)
					require.Less(t, status, 500, what)
					var e struct {
						Error struct{ Message string } `json:"error"`
					}
					require.NoError(t, json.Unmarshal(body, &e), what)
					require.Equal(t, e.Error.Message, spelledAsAPI(strings.TrimSpace(strings.TrimPrefix(res.stderr, "verdict: "))), what)
					continue
				}
				require.Equal(t, 200, status, what)
				var fromCLI, fromAPI any
				require.NoError(t, json.Unmarshal([]byte(res.stdout), &fromCLI), what)
				require.NoError(t, json.Unmarshal(body, &fromAPI), what)
				require.Equal(t, fromCLI, fromAPI, what)
			}
		})
	}
}

// cliArgs is the command line of door d for the query q: flags, then the
// positional arguments, with JSON out and nothing recorded.
func cliArgs(d door, fields []request.Field, q url.Values) []string {
	args := slices.Clone(d.command)
	var pos []string
	for _, f := range fields {
		for _, v := range q[f.Name] {
			switch {
			case f.Pos != "":
				pos = append(pos, v)
			case f.Kind == request.Boolean:
				args = append(args, "--"+f.Flag()+"="+v)
			default:
				args = append(args, "--"+f.Flag(), v)
			}
		}
	}
	args = append(args, "--format", "json")
	if slices.Contains(d.cliOnly, "no-record") {
		args = append(args, "--no-record")
	}
	return append(args, pos...)
}

var flagName = regexp.MustCompile(`--([a-z][a-z0-9-]*)`)

// spelledAsAPI spells the command line's flags in a message as the API's
// parameters: --fdr-alpha as fdr_alpha, BASELINE as baseline.
func spelledAsAPI(msg string) string {
	msg = flagName.ReplaceAllStringFunc(msg, func(s string) string { return strings.ReplaceAll(s[2:], "-", "_") })
	return strings.NewReplacer("BASELINE", "baseline", "CANDIDATE", "candidate").Replace(msg)
}
