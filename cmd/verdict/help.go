package main

import (
	"embed"
	"strings"
)

// The long help of each command is prose in help/COMMAND.txt, kept apart
// from the wiring so that it reads and reviews as text.
//
//go:embed help/*.txt
var helpFiles embed.FS

// help is the long help of a command, from help/name.txt.
func help(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("cmd/verdict: no help/" + name + ".txt")
	}
	return strings.TrimSuffix(string(b), "\n")
}
