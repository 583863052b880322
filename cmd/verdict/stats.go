package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/internal/columns"
	"github.com/verdict-ml/verdict/report"
)

// statsMethod is one `verdict stats METHOD` subcommand: a statistics
// function applied to the columns of the input, with options declared as a
// request (package request).
type statsMethod struct {
	name, usage string
	inputs      string // the input fields, for --help; "" when it reads none
	flags       []cli.Flag
	// start decodes and checks the options, before any input is read, and
	// gives the run on the input.
	start func(c *cli.Context) (func(*columns.Columns) (any, error), error)
}

// method is a subcommand whose options are the request O: its flags come
// from O's declaration, and run gets them decoded and checked (by O's Check
// method, if it has one).
func method[O any](name, usage, inputs string, run func(c *cli.Context, in *columns.Columns, o O) (any, error)) statsMethod {
	start := func(c *cli.Context) (func(*columns.Columns) (any, error), error) {
		var o O
		if err := decode(c, &o); err != nil {
			return nil, err
		}
		if ch, ok := any(o).(interface{ Check() error }); ok {
			if err := requestError(o, ch.Check()); err != nil {
				return nil, err
			}
		}
		return func(in *columns.Columns) (any, error) { return run(c, in, o) }, nil
	}
	return statsMethod{name: name, usage: usage, inputs: inputs, flags: requestFlags(new(O)), start: start}
}

// pairMethod is a method of the input's columns left and right.
func pairMethod[O, R any](name, usage string, f func(left, right []float64, o O) (R, error)) statsMethod {
	return method(name, usage, "left, right", func(_ *cli.Context, in *columns.Columns, o O) (any, error) {
		left, right, err := in.Pair()
		if err != nil {
			return nil, err
		}
		return f(left, right, o)
	})
}

// foldsMethod is a method of per-fold differences, or of the scores left
// and right of each fold.
func foldsMethod[O, R any](name, usage string, ofDiffs func([]float64, O) (R, error), ofPair func(left, right []float64, o O) (R, error)) statsMethod {
	return method(name, usage, "left, right (one score per fold), or diffs", func(_ *cli.Context, in *columns.Columns, o O) (any, error) {
		diffs, left, right, err := in.DiffsOrPair()
		if err != nil {
			return nil, err
		}
		if diffs != nil {
			return ofDiffs(diffs, o)
		}
		return ofPair(left, right, o)
	})
}

// columnMethod is a method of one column of numbers.
func columnMethod[O, R any](name, usage, column, inputs string, f func([]float64, O) (R, error)) statsMethod {
	return method(name, usage, inputs, func(_ *cli.Context, in *columns.Columns, o O) (any, error) {
		values, err := in.Floats(column, true)
		if err != nil {
			return nil, err
		}
		return f(values, o)
	})
}

// flagsMethod is a method of its options alone.
func flagsMethod[O, R any](name, usage string, f func(O) (R, error)) statsMethod {
	return method(name, usage, "", func(_ *cli.Context, _ *columns.Columns, o O) (any, error) { return f(o) })
}

func statsCommand() *cli.Command {
	cmd := &cli.Command{
		Name:        "stats",
		Usage:       "run a paired statistical test on numbers you give it, without logging anything",
		Description: help("stats"),
	}
	var names []string
	for _, m := range statsMethods() {
		flags, help := m.flags, "No input: flags only."
		if m.inputs != "" { // the methods that take data take it from --input
			help = "Input (--input FILE or stdin, JSON or CSV): " + m.inputs
			flags = append([]cli.Flag{&cli.StringFlag{Name: "input", Aliases: []string{"i"}, Usage: "input `FILE` (default: stdin)"},
				&cli.StringFlag{Name: "input-format", Usage: "input `FORMAT`: json, csv or tsv (default: from the extension, else by content)"}}, flags...)
		}
		flags = append(flags, &cli.StringFlag{Name: "format", Value: "table", Usage: "output `FORMAT`: table or json"})
		names = append(names, m.name)
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
				run, err := m.start(c)
				if err != nil {
					return err
				}
				var in *columns.Columns
				if m.inputs != "" {
					if in, err = columns.Open(c.String("input"), c.String("input-format")); err != nil {
						return err
					}
				}
				res, err := run(in)
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
	cmd.Description += "\n\nMethods: " + strings.Join(names, ", ") + "\n(see 'verdict stats METHOD --help')"
	return cmd
}
