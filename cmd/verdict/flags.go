package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

// Flags shared by several commands. Each call makes a new flag: urfave/cli
// records parsing state in the flag value itself.

// reportFormatFlag is the --format of report commands.
func reportFormatFlag() cli.Flag {
	return &cli.StringFlag{Name: "format", Value: "table", Usage: "output `FORMAT`: table, markdown, json or csv"}
}

// reportFormat reads and checks --format.
func reportFormat(c *cli.Context) (string, error) {
	f := c.String("format")
	switch f {
	case "table", "markdown", "json", "csv":
		return f, nil
	}
	return "", userError("--format %q: want table, markdown, json or csv", f)
}

// prepare does what every report command does before its work: it checks
// --format and --plot, so that a typo fails before any work, and opens the
// store.
func prepare(c *cli.Context) (format string, st *store.Store, err error) {
	if format, err = reportFormat(c); err != nil {
		return "", nil, err
	}
	if err := checkPlotPath(c); err != nil {
		return "", nil, err
	}
	st, err = openStore(c)
	return format, st, err
}

// withStore runs fn on the store the flags name, and closes it.
func withStore(c *cli.Context, fn func(*store.Store) error) error {
	st, err := openStore(c)
	if err != nil {
		return err
	}
	defer st.Close()
	return fn(st)
}

// holdingValues lowers the garbage collector's target, unless GOGC is set,
// while a command holds every metric's values at once, so that each
// metric's garbage goes before the heap doubles on top of them. Call the
// function it returns to restore the target.
func holdingValues() func() {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(25)
	return func() { debug.SetGCPercent(old) }
}

// plotFlag is --plot FILE.svg|FILE.png; what says what the plot shows.
func plotFlag(what string) cli.Flag {
	return &cli.StringFlag{Name: "plot", Usage: "also draw " + what + " to `FILE` (.svg or .png)"}
}

// checkPlotPath fails early, before any work, on a --plot path with an
// extension verdict cannot draw or in a folder that does not exist.
func checkPlotPath(c *cli.Context) error {
	if path := c.String("plot"); path != "" {
		if _, err := report.PlotFormat(path); err != nil {
			return userError("--plot: %v", err)
		}
		if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
			return userError("--plot %s: folder %s does not exist", path, filepath.Dir(path))
		}
	}
	return nil
}

// savePlot draws the figure to --plot, when given, and says where it went,
// on stderr so that stdout stays the report.
func savePlot(c *cli.Context, draw func() (*report.Figure, error)) error {
	path := c.String("plot")
	if path == "" {
		return nil
	}
	fig, err := draw()
	if errors.Is(err, report.ErrNothingToPlot) {
		return userError("--plot: %v", err)
	}
	if err != nil {
		return err
	}
	if err := fig.Save(path); err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	fmt.Fprintf(c.App.ErrWriter, "plot written to %s\n", path)
	return nil
}
