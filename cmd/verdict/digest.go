package main

import (
	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/request/cliflag"
)

// notShaping are the flags of log and evaluate that change how the work is
// done or shown, not what is stored, and so stay out of a request digest.
var notShaping = []string{"database-url", "format", "progress", "quiet", "log-every", "log-format", "connections", "idempotency-key", "per-user-out"}

// fileFlags are the flags of log and evaluate whose value is a file the
// evaluation is made from: a digest holds the file's content, not its name.
var fileFlags = []string{"items", "scores", "targets", "sample-ids", "trec-run", "trec-qrels", "predictions", "params-file", "labels"}

// requestDigest returns the digest that an --idempotency-key holds, as
// store.NewEvaluation.RequestDigest wants it (see cliflag.Digest). It reads
// the files now, before the log opens its transaction, rather than when
// the store asks, inside it. The same key with another digest is then
// refused rather than answered with the first evaluation, so that a reused
// key never drops new data in silence.
func requestDigest(c *cli.Context) func() string {
	sum := cliflag.Digest(c, notShaping, fileFlags)
	return func() string { return sum }
}
