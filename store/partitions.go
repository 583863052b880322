package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// unit_values is partitioned in two levels (migrations 1 and 5): by groups of
// evaluationsPerGroup consecutive evaluation IDs, then by evaluation. Each
// evaluation's values are in verdict_units.unit_values_<id>, and each group
// is verdict_units.unit_values_g<id/100>. Evaluations logged before
// migration 5 are attached to unit_values directly.

// evaluationsPerGroup is how many evaluation IDs a group holds. Attaching a
// partition loads the list of its new parent's partitions, which a group
// keeps short. It is not larger because PostgreSQL proves that an
// evaluation's CHECK (evaluation_id = N) implies its group's list of IDs,
// which spares a scan of the table, only for lists of up to 100 values.
const evaluationsPerGroup = 100

// groupLockSpace is the first key of the advisory locks on groups ('vgrp').
const groupLockSpace = 0x76677270

// partitionName is the quoted name of evaluation id's partition. It is built
// from the integer ID alone.
func partitionName(id int64) string {
	return pgx.Identifier{"verdict_units", fmt.Sprintf("unit_values_%d", id)}.Sanitize()
}

// attachPartition attaches table, evaluation id's values, to its group in
// tx, creating the group with its first evaluation. Both attachments take a
// SHARE UPDATE EXCLUSIVE lock on the parent, which readers do not conflict
// with. Creating a group is serialised by an advisory lock, so that two
// first evaluations of a group logged at once do not both create it.
func attachPartition(ctx context.Context, tx pgx.Tx, table string, id int64) error {
	g := id / evaluationsPerGroup
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, groupLockSpace, g); err != nil {
		return fmt.Errorf("lock group %d: %w", g, err)
	}
	group := pgx.Identifier{"verdict_units", fmt.Sprintf("unit_values_g%d", g)}.Sanitize()
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, group).Scan(&exists); err != nil {
		return err
	}
	if !exists {
		ids := make([]string, evaluationsPerGroup)
		for i := range ids {
			ids[i] = fmt.Sprint(g*evaluationsPerGroup + int64(i))
		}
		// Created, then attached: CREATE TABLE ... PARTITION OF would lock
		// unit_values against its readers until the commit.
		if _, err := tx.Exec(ctx, fmt.Sprintf(`
			CREATE TABLE %[1]s (LIKE unit_values INCLUDING DEFAULTS) PARTITION BY LIST (evaluation_id);
			ALTER TABLE unit_values ATTACH PARTITION %[1]s FOR VALUES IN (%[2]s)`,
			group, strings.Join(ids, ", "))); err != nil {
			return fmt.Errorf("create group %d: %w", g, err)
		}
	}
	_, err := tx.Exec(ctx, fmt.Sprintf(`ALTER TABLE %s ATTACH PARTITION %s FOR VALUES IN (%d)`, group, table, id))
	return err
}
