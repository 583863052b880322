package store

import (
	"fmt"

	"github.com/jackc/pgx/v5"
)

// unit_values is partitioned in two levels (migrations 1 and 5): by groups of
// 100 consecutive evaluation IDs, then by evaluation. Each
// evaluation's values are in verdict_units.unit_values_<id>, and each group
// is verdict_units.unit_values_g<id/100>. Evaluations logged before
// migration 5 are attached to unit_values directly. The SQL functions of
// migration 9 (verdict_units.create_values and the others) make, index,
// attach and drop these tables, so that a role that may log but not alter the
// schema can add an evaluation's values.

// Attaching a partition loads the list of
// its new parent's partitions, which a group keeps short. It is not larger
// because PostgreSQL proves that an evaluation's CHECK (evaluation_id = N)
// implies its group's list of IDs, which spares a scan of the table, only
// for lists of up to 100 values.

// partitionName is the quoted name of evaluation id's partition. It is built
// from the integer ID alone.
func partitionName(id int64) string {
	return pgx.Identifier{"verdict_units", fmt.Sprintf("unit_values_%d", id)}.Sanitize()
}
