package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

func migrateCommand() *cli.Command {
	return &cli.Command{
		Name:        "migrate",
		Usage:       "apply pending schema migrations (verdict also does this on first connect)",
		Description: help("migrate"),
		Action: func(c *cli.Context) error {
			st, err := store.OpenLocated(c.Context, c.String("database-url"), c.App.ErrWriter, store.Options{NoMigrate: true})
			if err != nil {
				return err
			}
			defer st.Close()
			applied, err := st.Migrate(c.Context)
			if err != nil {
				return err
			}
			current, _, err := st.SchemaVersions(c.Context)
			if err != nil {
				return err
			}
			if len(applied) == 0 {
				fmt.Fprintf(c.App.Writer, "schema is up to date at version %d\n", current)
				return nil
			}
			fmt.Fprintf(c.App.Writer, "applied %d migration(s); schema is at version %d\n", len(applied), current)
			return nil
		},
		Subcommands: []*cli.Command{{
			Name:  "status",
			Usage: "list migrations and whether each is applied",
			Action: func(c *cli.Context) error {
				st, err := store.OpenLocated(c.Context, c.String("database-url"), c.App.ErrWriter, store.Options{NoMigrate: true})
				if err != nil {
					return err
				}
				defer st.Close()
				current, known, err := st.SchemaVersions(c.Context)
				if err != nil {
					return err
				}
				list, err := st.MigrationStatus(c.Context)
				if err != nil {
					return err
				}
				return report.Migrations(c.App.Writer, list, current, known)
			},
		}},
	}
}
