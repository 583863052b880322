package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

func diffCommand() *cli.Command {
	return resultCommand(&cli.Command{Name: "diff", Usage: "per-user drill-down: which users moved most between two evaluations"},
		"a histogram of the per-user differences",
		func(c *cli.Context, st *store.Store, req compare.DiffRequest) (*compare.DiffResult, error) {
			if c.String("out") != "" || c.String("plot") != "" {
				req.KeepPairs()
			}
			d, err := req.Run(c.Context, st, nil)
			if out := c.String("out"); err == nil && out != "" {
				if err := writeAtomically(out, func(f *os.File) error { return report.DiffPairs(f, d) }); err != nil {
					return nil, userError("--out: %v", err)
				}
			}
			return d, err
		}, report.Diff, report.DiffHistogram,
		&cli.StringFlag{Name: "out", Usage: "write every pair (sample_id, baseline, candidate, difference) to CSV `FILE`"})
}

// writeAtomically writes a file through a temporary one renamed into place, so
// that a failure leaves no half-written file behind.
func writeAtomically(path string, write func(*os.File) error) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
