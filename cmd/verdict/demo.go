package main

import (
	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/demo"
)

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "train three recommenders on MovieLens, evaluate and log them per user, and compare them",
		Description: `demo tells verdict's story on real data, the GroupLens MovieLens
"latest-small" ratings that ship with verdict (100,836 ratings by 610 users;
see testdata/movielens-latest-small/README.txt for the licence).

Each user's 10 latest ratings are held out as the targets; three simple
recommenders learn from the earlier ones: popularity, a recency-weighted
popularity and an item-kNN. Each ranks 20 unseen movies per user; verdict
evaluates the rankings per user and logs them to experiment "movielens-demo"
on the database verdict uses (the embedded default unless one is configured).
Then it compares models user by user, as 'verdict compare' does:
popularity and item-kNN are too close to tell apart on ndcg@10, and the
verdict says what it would take; popularity clearly beats its
recency-weighted variant. A rank of all three and the history follow.
Running demo again finds the evaluations already logged; each run records
its comparisons in the history.`,
		Action: func(c *cli.Context) error {
			if err := noArgs(c, "demo takes no arguments"); err != nil {
				return err
			}
			st, err := openStore(c)
			if err != nil {
				return err
			}
			defer st.Close()
			return demo.Tell(c.Context, st, c.App.Writer)
		},
	}
}
