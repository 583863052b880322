package main

import (
	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/demo"
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
			st, err := openStore(c)
			if err != nil {
				return err
			}
			defer st.Close()
			return demo.Tell(c.Context, st, c.App.Writer)
		},
	}
}
