package cliflag

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

// Digest returns the digest of what the command c was asked: SHA-256 of
// the flags that are set, by their first names, with their values, but for
// those that do not shape the answer (ignore), and of the content of every
// input file, those that flags name (files) and the arguments. It reads the files
// when called. A retry, even from a copy of the files or with the flags'
// other names, has the same digest.
func Digest(c *cli.Context, ignore, files []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "verdict %s v1\n", c.Command.Name)
	// Each flag by its first name, whichever alias was typed.
	var names []string
	for _, f := range c.Command.Flags {
		if name := f.Names()[0]; c.IsSet(name) && !slices.Contains(ignore, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		if slices.Contains(files, name) {
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
	return hex.EncodeToString(h.Sum(nil))
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
