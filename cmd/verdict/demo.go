package main

import (
	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/demo"
	"github.com/verdict-ml/verdict/store"
)

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:        "demo",
		Usage:       "train three recommenders on MovieLens, evaluate and log them per user, and compare them",
		Description: help("demo"),
		Action: func(c *cli.Context) error {
			if err := noArgs(c, "demo takes no arguments"); err != nil {
				return err
			}
			return withStore(c, func(st *store.Store) error { return demo.Tell(c.Context, st, c.App.Writer) })
		},
	}
}
