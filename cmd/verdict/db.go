package main

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/internal/dburl"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/localpg"
)

func dbCommand() *cli.Command {
	return &cli.Command{
		Name:        "db",
		Usage:       "show, start, stop or open the database verdict uses",
		Description: help("db"),
		Subcommands: []*cli.Command{
			{
				Name:   "status",
				Usage:  "say which database verdict uses and whether it answers",
				Action: dbStatus,
			},
			{
				Name:  "start",
				Usage: "start the embedded default cluster (creating it on first use)",
				Action: func(c *cli.Context) error {
					if err := embeddedOnly(c, "; there is no embedded cluster to start"); err != nil {
						return err
					}
					return withStore(c, func(*store.Store) error {
						_, err := fmt.Fprintf(c.App.Writer, "embedded cluster running in %s\n", localpg.DefaultHome())
						return err
					})
				},
			},
			{
				Name:  "stop",
				Usage: "stop the embedded default cluster",
				Action: func(c *cli.Context) error {
					if err := embeddedOnly(c, ", which it does not manage; nothing to stop"); err != nil {
						return err
					}
					cl := localpg.New(localpg.DefaultHome())
					stopped, err := cl.StopIfRunning(c.Context)
					if err == nil {
						said := map[bool]string{false: "embedded cluster in %s is not running\n", true: "stopped the embedded cluster in %s\n"}[stopped]
						fmt.Fprintf(c.App.Writer, said, cl.Home())
					}
					return err
				},
			},
			{
				Name:  "url",
				Usage: "print the database URL (password redacted)",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "show-password", Usage: "print the password instead of redacting it"},
				},
				Action: func(c *cli.Context) error {
					url, _, err := database(c)
					if err != nil {
						return err
					}
					if !c.Bool("show-password") {
						url = dburl.Redact(url)
					}
					fmt.Fprintln(c.App.Writer, url)
					return nil
				},
			},
			{
				Name:        "psql",
				Usage:       "open psql on the database verdict uses",
				ArgsUsage:   "[-- PSQL ARGS...]",
				Description: help("db-psql"),
				Action:      dbPsql,
			},
			{
				Name: "distribute", Usage: "hold the per-unit values on the worker nodes of a Citus cluster (once; idempotent)",
				Description: help("db-distribute"),
				Flags:       []cli.Flag{&cli.IntFlag{Name: "shards", Usage: "split the per-unit values into `N` shards", DefaultText: "Citus's, 32"}},
				Action: func(c *cli.Context) error {
					return withStore(c, func(st *store.Store) error {
						rep, err := st.Distribute(c.Context, store.DistributeOptions{ShardCount: c.Int("shards")})
						if err == nil {
							fmt.Fprintln(c.App.Writer, rep)
						}
						return err
					})
				},
			},
			{
				Name:  "role",
				Usage: "make least-privilege roles for a team database",
				Subcommands: []*cli.Command{{
					Name:        "create",
					Usage:       "create a login role that may only read, or read, log and compare",
					ArgsUsage:   "NAME --reader|--writer",
					Description: help("db-role-create"),
					Flags: []cli.Flag{
						&cli.BoolFlag{Name: "reader", Usage: "the role may read only"},
						&cli.BoolFlag{Name: "writer", Usage: "the role may read, log and compare"},
						&cli.BoolFlag{Name: "password-stdin", Usage: "read the role's password from the first line of standard input"},
					},
					Action: dbRoleCreate,
				}},
			},
		},
	}
}

// embeddedOnly refuses a command that acts on the embedded cluster when
// verdict uses another database; why ends the message.
func embeddedOnly(c *cli.Context, why string) error {
	if url, src := store.ResolveURL(c.String("database-url")); url != "" {
		return userError("verdict uses %s (from %s)%s", dburl.Redact(url), src, why)
	}
	return nil
}

func dbRoleCreate(c *cli.Context) error {
	if c.NArg() != 1 || c.Bool("reader") == c.Bool("writer") {
		return userError("usage: verdict db role create NAME --reader|--writer [--password-stdin]")
	}
	kind := store.Reader
	if c.Bool("writer") {
		kind = store.Writer
	}
	var password string
	if c.Bool("password-stdin") {
		line, _ := bufio.NewReader(c.App.Reader).ReadString('\n')
		if password = strings.TrimRight(line, "\r\n"); password == "" {
			return userError("--password-stdin: the first line of standard input is empty")
		}
	}
	return withStore(c, func(st *store.Store) error {
		res, err := st.CreateRole(c.Context, c.Args().First(), kind, password)
		if err == nil {
			report.Role(c.App.Writer, res)
		}
		return err
	})
}

func dbStatus(c *cli.Context) error {
	w := c.App.Writer
	url, src := store.ResolveURL(c.String("database-url"))
	if url == "" {
		cl := localpg.New(localpg.DefaultHome())
		s, err := cl.Status(c.Context)
		if err != nil {
			return err
		}
		report.EmbeddedCluster(w, s)
		if !s.Running {
			return nil
		}
		url = cl.URL()
	} else {
		fmt.Fprintf(w, "database:    %s (from %s)\n", dburl.Redact(url), src)
	}
	st, err := store.Open(c.Context, url, store.Options{NoMigrate: true})
	if err != nil {
		fmt.Fprintf(w, "connection:  failed: %v\n", err)
		return cli.Exit("", exitError)
	}
	defer st.Close()
	current, known, err := st.SchemaVersions(c.Context)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "connection:  ok")
	report.SchemaVersion(w, current, known)
	return nil
}

func dbPsql(c *cli.Context) error {
	st, err := openStore(c)
	if err != nil {
		return err
	}
	st.Close()
	url, _, err := database(c)
	if err != nil {
		return err
	}
	// psql reads the password from a file: ps would show an argument.
	conn, password, err := dburl.SplitPassword(url)
	if err != nil {
		return err
	}
	code, err := localpg.Psql(conn, password, c.Args().Slice(), c.App.Reader, c.App.Writer, c.App.ErrWriter)
	if err == nil && code != 0 {
		err = cli.Exit("", code)
	}
	return err
}
