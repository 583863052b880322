package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/report"
)

// plotFlag is --plot FILE.svg|FILE.png; what says what the plot shows.
func plotFlag(what string) cli.Flag {
	return &cli.StringFlag{Name: "plot", Usage: "also draw " + what + " to `FILE` (.svg or .png)"}
}

// checkPlotPath fails early, before any work, on a --plot path with an
// extension verdict cannot draw.
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

// savePlot draws a figure to path and says where it went, on stderr so that
// stdout stays the report.
func savePlot(c *cli.Context, path string, draw func() (*report.Figure, error)) error {
	fig, err := draw()
	if err != nil {
		return err
	}
	if err := fig.Save(path); err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	fmt.Fprintf(c.App.ErrWriter, "plot written to %s\n", path)
	return nil
}
