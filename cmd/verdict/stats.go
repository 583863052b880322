package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/internal/columns"
	"github.com/verdict-ml/verdict/report"
)

// statsMethod is one `verdict stats METHOD` subcommand: a statistics
// function applied to the columns of the input.
type statsMethod struct {
	name   string
	usage  string
	inputs string // the input fields, for --help; "" when it reads none
	flags  []cli.Flag
	run    func(c *cli.Context, in *columns.Columns) (any, error)
}

func statsCommand() *cli.Command {
	cmd := &cli.Command{
		Name:        "stats",
		Usage:       "run a paired statistical test on numbers you give it, without logging anything",
		Description: help("stats"),
	}
	for _, m := range statsMethods() {
		flags, help := m.flags, "No input: flags only."
		if m.inputs != "" { // the methods that take data take it from --input
			help = "Input (--input FILE or stdin, JSON or CSV): " + m.inputs
			flags = append([]cli.Flag{&cli.StringFlag{Name: "input", Aliases: []string{"i"}, Usage: "input `FILE` (default: stdin)"},
				&cli.StringFlag{Name: "input-format", Usage: "input `FORMAT`: json, csv or tsv (default: from the extension, else by content)"}}, flags...)
		}
		flags = append(flags, &cli.StringFlag{Name: "format", Value: "table", Usage: "output `FORMAT`: table or json"})
		cmd.Subcommands = append(cmd.Subcommands, &cli.Command{
			Name:        m.name,
			Usage:       m.usage,
			Description: help,
			Flags:       flags,
			Action: func(c *cli.Context) error {
				format := c.String("format")
				if format != "table" && format != "json" {
					return userError("--format %q: want table or json", format)
				}
				if c.NArg() > 0 {
					return userError("stats %s takes no arguments, got %q (the data comes from --input or stdin)", m.name, c.Args().First())
				}
				var in *columns.Columns
				if m.inputs != "" {
					var err error
					if in, err = columns.Open(c.String("input"), c.String("input-format")); err != nil {
						return err
					}
				}
				res, err := m.run(c, in)
				if err != nil {
					return err // exit code 2, as every error
				}
				if format == "json" {
					return report.WriteJSON(c.App.Writer, res)
				}
				return report.WriteFields(c.App.Writer, res)
			},
		})
	}
	var names []string
	for _, m := range statsMethods() {
		names = append(names, m.name)
	}
	cmd.Description += "\n\nMethods: " + strings.Join(names, ", ") + "\n(see 'verdict stats METHOD --help')"
	return cmd
}
