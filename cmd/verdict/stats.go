package main

import (
	"context"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/classify"
	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/internal/columns"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/request/cliflag"
	"github.com/verdict-ml/verdict/stats"
)

// statsMethods are the subcommands of `verdict stats`: the tests of the
// catalogue (stats.Methods), with classify's paired-bootstrap after
// bootstrap, and compare's test of keyed scores last.
func statsMethods() []stats.Method {
	var ms []stats.Method
	for _, m := range stats.Methods() {
		ms = append(ms, m)
		if m.Name == "bootstrap" {
			ms = append(ms, classify.PairedBootstrapMethod())
		}
	}
	return append(ms, compare.ScoresMethod(report.Verdict))
}

func statsCommand() *cli.Command {
	cmd := &cli.Command{
		Name:        "stats",
		Usage:       "run a paired statistical test on numbers you give it, without logging anything",
		Description: help("stats"),
	}
	var names []string
	for _, m := range statsMethods() {
		flags, help := cliflag.Flags(m.Options()), "No input: flags only."
		if m.Inputs != "" { // the methods that take data take it from --input
			help = "Input (--input FILE or stdin, JSON or CSV): " + m.Inputs
			flags = append([]cli.Flag{&cli.StringFlag{Name: "input", Aliases: []string{"i"}, Usage: "input `FILE` (default: stdin)"},
				&cli.StringFlag{Name: "input-format", Usage: "input `FORMAT`: json, csv or tsv (default: from the extension, else by content)"}}, flags...)
		}
		flags = append(flags, &cli.StringFlag{Name: "format", Value: "table", Usage: "output `FORMAT`: table or json"})
		names = append(names, m.Name)
		cmd.Subcommands = append(cmd.Subcommands, &cli.Command{
			Name:        m.Name,
			Usage:       m.Usage,
			Description: help,
			Flags:       flags,
			Action: func(c *cli.Context) error {
				format := c.String("format")
				if format != "table" && format != "json" {
					return userError("--format %q: want table or json", format)
				}
				if c.NArg() > 0 {
					return userError("stats %s takes no arguments, got %q (the data comes from --input or stdin)", m.Name, c.Args().First())
				}
				// The options are decoded and checked before any input is read.
				opts := m.Options()
				if err := cliflag.Decode(c, opts); err != nil {
					return err
				}
				if err := requestError(opts, m.Check(opts)); err != nil {
					return err
				}
				if o, ok := opts.(interface{ SetContext(context.Context) }); ok {
					o.SetContext(c.Context)
				}
				var in *columns.Columns
				if m.Inputs != "" {
					var err error
					if in, err = columns.Open(c.String("input"), c.String("input-format")); err != nil {
						return err
					}
				}
				res, err := m.Run(opts, in)
				if err != nil {
					return requestError(opts, err) // exit code 2, as every error
				}
				if format == "json" {
					return report.WriteJSON(c.App.Writer, res)
				}
				return report.WriteFields(c.App.Writer, res)
			},
		})
	}
	cmd.Description += "\n\nMethods: " + strings.Join(names, ", ") + "\n(see 'verdict stats METHOD --help')"
	return cmd
}
