// Package cliflag makes a command of urfave/cli read a request (package
// request): its flags and positional arguments come from the request's
// declaration, and Decode fills the request with request.Decode, so that
// the command line takes the same fields, with the same defaults, checks
// and messages, as the HTTP API. Each field is a flag named as the field in
// kebab-case (fdr_alpha is --fdr-alpha), but for a positional argument
// (pos:"1") and a field the command line says its own way (door:"api").
//
// Importing the package changes cli.FlagStringer so that a declared flag's
// help line shows its placeholder, choices and default.
package cliflag

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/request"
)

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

// Flags are the flags of the request v's fields that are not
// positional arguments, nor said another way on the command line.
func Flags(v any) []cli.Flag {
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

// ArgsUsage is the positional arguments of the request v, for help.
func ArgsUsage(v any) string {
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

// Decode fills the request dst from the command's flags and positional
// arguments, with request.Decode: the checks and the messages are the
// API's. A field the command line says its own way is left for the caller
// to set.
func Decode(c *cli.Context, dst any) error {
	return decodeArgs(c, dst, true)
}

// DecodeFlags is Decode for a command whose positional arguments are not
// the request's: it leaves them to the caller.
func DecodeFlags(c *cli.Context, dst any) error {
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
		return usagef("unexpected argument %q: %s takes flags only (see '%s %s --help')", args[0], c.Command.Name, c.App.Name, c.Command.Name)
	case len(args) != len(pos):
		return usagef("%s takes %s, got %d arguments (see '%s %s --help')", c.Command.Name, strings.Join(strings.Fields(ArgsUsage(dst)), " and "), len(args), c.App.Name, c.Command.Name)
	default:
		for i, f := range pos {
			vals[f.Name] = []string{args[i]}
		}
	}
	return Spell(dst, request.Decode(vals, dst))
}

// Spell gives a request's error as the command line says it: a field as
// its flag (--fdr-alpha) or its positional argument (BASELINE). Other
// errors, and nil, it returns as they are.
func Spell(req any, err error) error {
	var re *request.Error
	if !errors.As(err, &re) {
		return err
	}
	spelled := map[string]string{}
	for _, f := range request.Fields(req) {
		spelled[f.Name] = "--" + f.Flag()
		if f.Pos != "" {
			spelled[f.Name] = f.Arg
		}
	}
	return usagef("%s", re.Render(func(name string) string { return cmp.Or(spelled[name], "--"+strings.ReplaceAll(name, "_", "-")) }))
}

// usageError is a command line the request cannot be read from. It wraps
// request.ErrInvalid.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }
func (e *usageError) Unwrap() error { return request.ErrInvalid }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }
