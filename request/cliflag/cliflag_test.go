package cliflag

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/request"
)

type pairRequest struct {
	Baseline  string   `req:"baseline" pos:"1" required:"true" arg:"BASELINE" help:"the baseline"`
	Candidate string   `req:"candidate" pos:"2" required:"true" arg:"CANDIDATE" help:"the candidate"`
	FDRAlpha  *float64 `req:"fdr_alpha" default:"0.05" arg:"A" help:"the rate"`
	Metric    []string `req:"metric" short:"m" arg:"METRIC" help:"a metric"`
	Quiet     bool     `req:"quiet" help:"say less"`
	Body      bool     `req:"body" door:"api" help:"the API's own"`
}

// run runs a command of the request's flags with args, and returns the
// request it decoded or the error.
func run(t *testing.T, args ...string) (pairRequest, error) {
	t.Helper()
	var got pairRequest
	app := &cli.App{Name: "verdict", Writer: io.Discard, ErrWriter: io.Discard, ExitErrHandler: func(*cli.Context, error) {},
		Commands: []*cli.Command{{Name: "compare", Flags: Flags(pairRequest{}), Action: func(c *cli.Context) error {
			return Decode(c, &got)
		}}}}
	err := app.Run(append([]string{"verdict", "compare"}, args...))
	return got, err
}

func TestFlagsAndArgs(t *testing.T) {
	var names []string
	for _, f := range Flags(pairRequest{}) {
		names = append(names, f.Names()...)
	}
	// Positional fields and the API's own are no flags.
	if got := strings.Join(names, " "); got != "fdr-alpha metric m quiet" {
		t.Fatalf("flags %q", got)
	}
	if got := ArgsUsage(pairRequest{}); got != "BASELINE CANDIDATE" {
		t.Fatalf("args usage %q", got)
	}
	if got := cli.FlagStringer(Flags(pairRequest{})[0]); got != "--fdr-alpha A\tthe rate (default: 0.05)" {
		t.Fatalf("help line %q", got)
	}
}

func TestDecode(t *testing.T) {
	got, err := run(t, "--fdr-alpha", "0.1", "-m", "a", "-m", "b", "--quiet", "base", "cand")
	if err != nil {
		t.Fatal(err)
	}
	if got.Baseline != "base" || got.Candidate != "cand" || got.FDRAlpha == nil || *got.FDRAlpha != 0.1 ||
		strings.Join(got.Metric, ",") != "a,b" || !got.Quiet {
		t.Fatalf("decoded %+v", got)
	}
	got, err = run(t, "base", "cand")
	if err != nil || got.FDRAlpha != nil {
		t.Fatalf("an optional field not given stays nil: %+v, %v", got, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"base"}, "compare takes BASELINE and CANDIDATE, got 1 arguments (see 'verdict compare --help')"},
		{[]string{"--fdr-alpha", "x", "base", "cand"}, `--fdr-alpha "x": want a finite number`},
		{[]string{"--fdr-alpha", "0.1", "--fdr-alpha", "0.2", "base", "cand"}, "--fdr-alpha is given 2 times: give it once"},
	} {
		_, err := run(t, c.args...)
		if err == nil || err.Error() != c.want || !errors.Is(err, request.ErrInvalid) {
			t.Errorf("%v: %v, want %q wrapping request.ErrInvalid", c.args, err, c.want)
		}
	}
}

func TestSpell(t *testing.T) {
	err := Spell(pairRequest{}, request.Errorf("{fdr_alpha} goes with {baseline} and {no_such_field}"))
	if err.Error() != "--fdr-alpha goes with BASELINE and --no-such-field" {
		t.Fatalf("spelled %q", err)
	}
	plain := errors.New("plain")
	if Spell(pairRequest{}, plain) != plain || Spell(pairRequest{}, nil) != nil {
		t.Fatal("other errors pass as they are")
	}
}
