package main

import (
	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/report"
)

func fingerprintCommand() *cli.Command {
	return &cli.Command{
		Name:        "fingerprint",
		Usage:       "print the fingerprint of targets, for 'verdict log --target-fingerprint'",
		ArgsUsage:   "TARGETS...",
		Description: help("fingerprint"),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "sample-ids", Usage: "NumPy `FILE` of the sample IDs of a .npz matrix's rows"},
			&cli.StringFlag{Name: "input-format", Usage: "targets `FORMAT`: npz, qrels or table (default: from the extension)"},
			&cli.StringFlag{Name: "format", Value: "table", Usage: "output `FORMAT`: table (fingerprint, tab, file, tab, samples) or json"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return userError("fingerprint needs at least one TARGETS file (see 'verdict fingerprint --help')")
			}
			format := c.String("format")
			if format != "table" && format != "json" {
				return userError("--format %q: want table or json", format)
			}
			var fps []report.Fingerprint
			for _, path := range c.Args().Slice() {
				fp, n, err := evaluate.FingerprintTargets(path, c.String("sample-ids"), c.String("input-format"))
				if err != nil {
					return err
				}
				fps = append(fps, report.Fingerprint{File: path, Fingerprint: fp, FingerprintKind: "targets", Samples: n})
			}
			return report.Fingerprints(c.App.Writer, format, fps)
		},
	}
}
