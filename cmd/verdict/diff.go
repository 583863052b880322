package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/request/cliflag"
)

func diffCommand() *cli.Command {
	return &cli.Command{
		Name:        "diff",
		Usage:       "per-user drill-down: which users moved most between two evaluations",
		ArgsUsage:   cliflag.ArgsUsage(compare.DiffRequest{}),
		Description: help("diff"),
		Flags: append(cliflag.Flags(compare.DiffRequest{}),
			&cli.StringFlag{Name: "out", Usage: "write every pair (sample_id, baseline, candidate, difference) to CSV `FILE`"},
			reportFormatFlag(),
			plotFlag("a histogram of the per-user differences"),
		),
		Action: func(c *cli.Context) error {
			var req compare.DiffRequest
			if err := cliflag.Decode(c, &req); err != nil {
				return err
			}
			format, st, err := prepare(c)
			if err != nil {
				return err
			}
			defer st.Close()
			d, err := req.Run(c.Context, st, nil)
			if err != nil {
				return requestError(req, err)
			}
			if out := c.String("out"); out != "" {
				if err := writeAtomically(out, func(f *os.File) error { return report.DiffPairs(f, d) }); err != nil {
					return userError("--out: %v", err)
				}
			}
			if err := report.Diff(c.App.Writer, format, d); err != nil {
				return err
			}
			return savePlot(c, func() (*report.Figure, error) { return report.DiffHistogram(d) })
		},
	}
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
