// Package flagorder lets the flags of a urfave/cli command follow its
// positional arguments, as git and docker users type them.
package flagorder

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// FlagsFirst moves a command's flags before its positional arguments, so
// that `verdict compare main pr-1 --metric ndcg@20` means what
// `verdict compare --metric ndcg@20 main pr-1` does, as git and docker
// users expect. urfave/cli stops reading flags at the first positional
// argument; without this, the flags after it would be taken for more
// arguments. A flag's value moves with it; "--" ends the flags, and what
// follows it stays as it is. Words that are neither flags nor flag values
// stay positional, so commands still refuse stray words.
func FlagsFirst(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	i := 1
	for i < len(args) && isFlag(args[i]) { // global flags
		if takesValue(app.Flags, args[i]) {
			i++
		}
		i++
	}
	var cmd *cli.Command
	for cmds := app.Commands; i < len(args); {
		next := findCommand(cmds, args[i])
		if next == nil {
			break
		}
		cmd, cmds = next, next.Subcommands
		i++
	}
	if cmd == nil {
		return args
	}
	var flags, pos []string
	rest := args[i:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		switch {
		case a == "--":
			pos = append(pos, rest[j:]...)
			j = len(rest)
		case isFlag(a):
			flags = append(flags, a)
			if takesValue(cmd.Flags, a) && j+1 < len(rest) {
				flags = append(flags, rest[j+1])
				j++
			}
		default:
			pos = append(pos, a)
		}
	}
	out := append([]string{}, args[:i]...)
	return append(append(out, flags...), pos...)
}

// isFlag reports whether a word is a flag: "-x" or "--name", with or
// without "=value", but not "-" alone (stdin) or a negative number.
func isFlag(a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	return !(a[1] >= '0' && a[1] <= '9' || a[1] == '.')
}

// takesValue reports whether flag a, of the flags fs, takes its value from
// the next word: it is not a boolean flag and has no "=value".
func takesValue(fs []cli.Flag, a string) bool {
	name := strings.TrimLeft(a, "-")
	if strings.Contains(name, "=") {
		return false
	}
	for _, f := range fs {
		for _, n := range f.Names() {
			if n == name {
				_, isBool := f.(*cli.BoolFlag)
				return !isBool
			}
		}
	}
	return false
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.Name == name || slices.Contains(c.Aliases, name) {
			return c
		}
	}
	return nil
}
