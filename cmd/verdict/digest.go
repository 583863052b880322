package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"slices"

	"github.com/urfave/cli/v2"
)

// notShaping are the flags of log and evaluate that change how the work is
// done or shown, not what is stored, and so stay out of a request digest.
var notShaping = []string{"database-url", "format", "progress", "quiet", "log-every", "log-format", "connections", "idempotency-key", "per-user-out"}

// fileFlags are the flags of log and evaluate whose value is a file the
// evaluation is made from: a digest holds the file's content, not its name.
var fileFlags = []string{"items", "scores", "targets", "sample-ids", "trec-run", "trec-qrels", "predictions", "params-file", "labels"}

// requestDigest returns the digest that an --idempotency-key holds, as
// store.NewEvaluation.RequestDigest wants it: SHA-256 of the flags that
// shape the evaluation, with their values, and of the content of every
// input file, those that flags name and the arguments. It reads the files
// now, before the log opens its transaction, rather than when the store
// asks, inside it. The same key with another digest is then refused rather
// than answered with the first evaluation, so that a reused key never
// drops new data in silence, while a retry, even from a copy of the files
// or with the flags' other names, is one.
func requestDigest(c *cli.Context) func() string {
	h := sha256.New()
	fmt.Fprintf(h, "verdict %s v1\n", c.Command.Name)
	// Each flag by its first name, whichever alias was typed.
	var names []string
	for _, f := range c.Command.Flags {
		if name := f.Names()[0]; c.IsSet(name) && !slices.Contains(notShaping, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		if slices.Contains(fileFlags, name) {
			fmt.Fprintf(h, "file flag %s\n", name)
			hashFile(h, c.String(name))
			continue
		}
		fmt.Fprintf(h, "flag %s %q\n", name, fmt.Sprint(c.Value(name)))
	}
	for _, arg := range c.Args().Slice() {
		fmt.Fprintf(h, "file argument\n")
		hashFile(h, arg)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	return func() string { return sum }
}

// hashFile writes the size and the content of the file at path to h.
// Should it fail, the error goes into the digest, and the log that reads
// the file next reports it.
func hashFile(h hash.Hash, path string) {
	in, err := os.Open(path)
	if err == nil {
		defer in.Close()
		var fi os.FileInfo
		if fi, err = in.Stat(); err == nil {
			fmt.Fprintf(h, "%d bytes\n", fi.Size())
			_, err = io.Copy(h, in)
		}
	}
	if err != nil {
		fmt.Fprintf(h, "unreadable: %v\n", err)
	}
}
