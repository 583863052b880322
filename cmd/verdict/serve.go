package main

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/request/cliflag"
	"github.com/verdict-ml/verdict/server"
	"github.com/verdict-ml/verdict/store"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:        "serve",
		Usage:       "serve the HTTP API and the web view of the database verdict uses",
		Description: help("serve"),
		Flags:       cliflag.Flags(server.Options{}),
		Action: func(c *cli.Context) error {
			var o server.Options
			if err := noArgs(c, "serve takes no arguments"); err != nil {
				return err
			} else if err := cliflag.Decode(c, &o); err != nil {
				return err
			}
			cfg, err := o.Config(slog.New(slog.NewJSONHandler(c.App.ErrWriter, nil)))
			if err != nil {
				return requestError(o, err)
			}
			st, err := openStore(c)
			if err != nil {
				return err
			}
			defer st.Close()
			srv, err := server.New(st, cfg)
			if errors.Is(err, server.ErrMetricsAddr) {
				return userError("--metrics-addr: %v", err)
			}
			if err != nil {
				return err
			}
			defer srv.Close()
			l, err := server.Listen(o.Listen)
			if err != nil {
				return userError("--listen: %v", err)
			}
			scheme := map[bool]string{false: "http", true: "https"}[o.TLSCert != ""]
			fmt.Fprintf(c.App.ErrWriter, "verdict serve: %s on %s://%s (database %s)", store.Version(), scheme, l.Addr(), st.URL())
			if a := srv.MetricsAddr(); a != nil {
				fmt.Fprintf(c.App.ErrWriter, ", metrics on http://%s/metrics", a)
			}
			fmt.Fprintln(c.App.ErrWriter)
			return srv.Serve(c.Context, l, o.TLSCert, o.TLSKey)
		},
	}
}

func tokenCommand() *cli.Command {
	return &cli.Command{
		Name:        "token",
		Usage:       "create, list and revoke the tokens of 'verdict serve'",
		Description: help("token"),
		Subcommands: []*cli.Command{
			{
				Name: "create", Usage: "create a token and print its secret, once",
				Flags: cliflag.Flags(store.NewToken{}),
				Action: func(c *cli.Context) error {
					var req store.NewToken
					if err := cliflag.Decode(c, &req); err != nil {
						return err
					}
					return withStore(c, func(st *store.Store) error {
						t, secret, err := req.Create(c.Context, st)
						if err == nil {
							report.TokenCreated(c.App.Writer, c.App.ErrWriter, t, secret)
						}
						return err
					})
				},
			},
			{
				Name: "list", Usage: "list tokens, revoked ones included", Flags: []cli.Flag{reportFormatFlag()},
				Action: func(c *cli.Context) error {
					format, st, err := prepare(c)
					if err != nil {
						return err
					}
					defer st.Close()
					list, err := st.ListTokens(c.Context)
					if err != nil {
						return err
					}
					return report.Tokens(c.App.Writer, format, list)
				},
			},
			{
				Name: "revoke", Usage: "revoke a token at once", ArgsUsage: "ID",
				Action: func(c *cli.Context) error {
					id, err := strconv.ParseInt(c.Args().First(), 10, 64)
					if c.NArg() != 1 || err != nil {
						return userError("usage: verdict token revoke ID (the ID that 'verdict token list' shows)")
					}
					return withStore(c, func(st *store.Store) error {
						t, err := st.RevokeToken(c.Context, id)
						if err != nil {
							return err
						}
						return report.Tokens(c.App.Writer, "table", []store.Token{*t})
					})
				},
			},
		},
	}
}
