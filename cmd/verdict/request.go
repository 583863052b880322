package main

import (
	"cmp"
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/request"
)

// A command's flags and positional arguments come from the declaration of
// the request it sends (package request), as the HTTP API's parameters
// do: one name, default, help text and set of rules for every door.

// declared maps each flag made from a request's declaration to its field,
// for the help text.
var declared sync.Map // cli.Flag → request.Field

func init() {
	plain := cli.FlagStringer
	cli.FlagStringer = func(fl cli.Flag) string {
		if f, ok := declared.Load(fl); ok {
			return flagHelp(f.(request.Field))
		}
		return plain(fl)
	}
}

// requestFlags are the flags of the request v's fields that are not
// positional arguments, nor said another way on the command line.
func requestFlags(v any) []cli.Flag {
	var flags []cli.Flag
	for _, f := range request.Fields(v) {
		if f.Pos != "" || f.APIOnly {
			continue
		}
		var aliases []string
		if f.Short != "" {
			aliases = []string{f.Short}
		}
		var fl cli.Flag
		switch {
		case f.Kind == request.Boolean:
			fl = &cli.BoolFlag{Name: f.Flag(), Aliases: aliases, Usage: f.Help}
		default:
			// A list even for a field of one value, so that a flag given
			// twice is refused, as the API refuses a parameter given twice,
			// rather than the first value dropped.
			fl = &cli.StringSliceFlag{Name: f.Flag(), Aliases: aliases, Usage: f.Help, DefaultText: f.Default}
		}
		declared.Store(fl, f)
		flags = append(flags, fl)
	}
	return flags
}

// flagHelp is the help line of a declared flag: its names and placeholder,
// a tab, then what it is for, its choices and its default.
func flagHelp(f request.Field) string {
	arg := ""
	if f.Kind != request.Boolean {
		arg = " " + cmp.Or(f.Arg, "value")
	}
	names := "--" + f.Flag() + arg
	if f.Short != "" {
		names += ", -" + f.Short + arg
	}
	help := f.Help
	if f.Choices != nil {
		help += ": " + strings.Join(f.Choices, ", ")
	}
	if f.Repeat {
		help += " (repeatable)"
	}
	if f.Default != "" && f.Kind != request.Boolean {
		help += " (default: " + f.Default + ")"
	}
	if f.Required {
		help += " (required)"
	}
	return names + "\t" + help
}

// argsUsage is the positional arguments of the request v, for help.
func argsUsage(v any) string {
	var args []string
	for _, f := range request.Fields(v) {
		switch f.Pos {
		case "":
		case "*":
			args = append(args, f.Arg, f.Arg, "["+f.Arg+"...]")
		default:
			args = append(args, f.Arg)
		}
	}
	return strings.Join(args, " ")
}

// decode fills the request dst from the command's flags and positional
// arguments, with request.Decode: the checks and the messages are the
// API's. A field the command line says its own way is left for the caller
// to set.
func decode(c *cli.Context, dst any) error {
	return decodeArgs(c, dst, true)
}

// decodeFlags is decode for a command whose positional arguments are not
// the request's: it leaves them to the caller.
func decodeFlags(c *cli.Context, dst any) error {
	return decodeArgs(c, dst, false)
}

func decodeArgs(c *cli.Context, dst any, withArgs bool) error {
	vals := request.Values{}
	var pos []request.Field
	for _, f := range request.Fields(dst) {
		switch name := f.Flag(); {
		case f.APIOnly:
		case f.Pos != "":
			pos = append(pos, f)
		case !c.IsSet(name):
		case f.Kind == request.Boolean:
			vals[f.Name] = []string{strconv.FormatBool(c.Bool(name))}
		default:
			vals[f.Name] = c.StringSlice(name)
		}
	}
	args := c.Args().Slice()
	switch {
	case !withArgs:
	case len(pos) == 1 && pos[0].Pos == "*":
		if len(args) > 0 {
			vals[pos[0].Name] = args
		}
	case len(args) != len(pos) && len(pos) == 0:
		return userError("unexpected argument %q: %s takes flags only (see 'verdict %s --help')", args[0], c.Command.Name, c.Command.Name)
	case len(args) != len(pos):
		return userError("%s takes %s, got %d arguments (see 'verdict %s --help')", c.Command.Name, strings.Join(strings.Fields(argsUsage(dst)), " and "), len(args), c.Command.Name)
	default:
		for i, f := range pos {
			vals[f.Name] = []string{args[i]}
		}
	}
	return requestError(dst, request.Decode(vals, dst))
}

// requestError spells a request's error as the command line does: a field
// as its flag (--fdr-alpha) or its positional argument (BASELINE), with the
// command line's hints. It is nil for nil.
func requestError(req any, err error) error {
	var re *request.Error
	if !errors.As(err, &re) {
		if err == nil {
			return nil
		}
		return withHint(err)
	}
	spelled := map[string]string{}
	for _, f := range request.Fields(req) {
		spelled[f.Name] = "--" + f.Flag()
		if f.Pos != "" {
			spelled[f.Name] = f.Arg
		}
	}
	return cli.Exit(re.Render(func(name string) string { return cmp.Or(spelled[name], "--"+strings.ReplaceAll(name, "_", "-")) }), exitError)
}
