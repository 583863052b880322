// Command verdict stores ML evaluations with the per-user values behind every
// metric in PostgreSQL, and tells whether a winner is real.
//
// This package only wires the command line: it parses flags, opens the
// database, calls one library function per command and maps errors to exit
// codes. Run `verdict --help` for the commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/internal/flagorder"
	"github.com/verdict-ml/verdict/internal/profiling"
	"github.com/verdict-ml/verdict/internal/progress"
	"github.com/verdict-ml/verdict/request/cliflag"
	"github.com/verdict-ml/verdict/scores"
	"github.com/verdict-ml/verdict/store"
)

// Exit codes.
const (
	exitOK    = 0
	exitGate  = 1 // a check the user asked for failed (reserved for CI gates)
	exitError = 2 // bad input, bad usage, or anything that went wrong
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	stopProfile := profiling.Start(os.Stderr)
	code := run(ctx, os.Args, os.Stdout, progress.NoSIGPIPE(os.Stderr))
	stopProfile()
	stop()
	os.Exit(code)
}

// run executes one command line and returns its exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	err := app.RunContext(ctx, flagorder.FlagsFirst(app, args))
	if err == nil {
		return exitOK
	}
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(stderr, "verdict:", msg)
		}
		return ec.ExitCode()
	}
	fmt.Fprintln(stderr, "verdict:", err)
	return exitError
}

func newApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:            "verdict",
		Usage:           "store ML evaluations with their per-user values, and tell whether a winner is real",
		Version:         store.Version(),
		Description:     help("verdict"),
		Writer:          stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		// Values such as ndcg@10,20 and --param layers=[64,32] hold commas.
		DisableSliceFlagSeparator: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "database-url", Usage: "PostgreSQL URL to use instead of `URL`s from $VERDICT_DATABASE_URL, $DATABASE_URL or the embedded default"},
		},
		ExitErrHandler: func(*cli.Context, error) {}, // run prints errors
		Commands: []*cli.Command{logCommand(), evaluateCommand(), compareCommand(), rankCommand(), leaderboardCommand(),
			diffCommand(), historyCommand(), reportCommand(), showCommand(), fingerprintCommand(), statsCommand(),
			runsCommand(), curveCommand(), demoCommand(), serveCommand(), tokenCommand(), dbCommand(), migrateCommand()},
	}
}

// database resolves the database URL for a command: an explicit URL, or the
// embedded default cluster, started if needed.
func database(c *cli.Context) (url, source string, err error) {
	return store.Locate(c.Context, c.String("database-url"), c.App.ErrWriter)
}

// openStore opens (and, on first use, migrates) the database for a command.
func openStore(c *cli.Context) (*store.Store, error) {
	return store.OpenLocated(c.Context, c.String("database-url"), c.App.ErrWriter, store.Options{})
}

// noArgs refuses positional arguments: a stray word, or the second word of
// a flag's value that was not quoted.
func noArgs(c *cli.Context, hint string) error {
	if c.NArg() > 0 {
		return userError("unexpected argument %q: %s", c.Args().First(), hint)
	}
	return nil
}

// userError marks an error as the user's to fix: exit code 2 with its message.
func userError(format string, args ...any) error {
	return cli.Exit(fmt.Sprintf(format, args...), exitError)
}

// withHint adds what the command line can do about an error from the
// libraries, whose messages name no flags: the flag that lifts a refusal,
// or names what was missing.
// requestError spells a request's error as the command line does (see
// cliflag.Spell), with the command line's hints.
func requestError(req any, err error) error {
	return withHint(cliflag.Spell(req, err))
}

func withHint(err error) error {
	switch {
	case errors.Is(err, store.ErrNotComparable):
		return fmt.Errorf("%w; --allow-different-targets compares the units they share", err)
	case errors.Is(err, store.ErrSeveralEvalSets):
		return fmt.Errorf("%w with --eval-set", err)
	case errors.Is(err, compare.ErrNeedExperiment):
		return fmt.Errorf("%w: name runs with --experiment", err)
	case errors.Is(err, evaluate.ErrBadDebug):
		return fmt.Errorf("--debug-users or --debug-sample-ids: %w", err)
	case errors.Is(err, scores.ErrUnknownFormat):
		return fmt.Errorf("%w, with --input-format", err)
	}
	return err
}
