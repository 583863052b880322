package store

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// DistributeOptions tune Distribute.
type DistributeOptions struct {
	// ShardCount is how many shards unit_values, and with it every
	// evaluation's table, is split into: 1 to 64000, or 0 for Citus's
	// default (citus.shard_count, 32 unless the server says otherwise).
	ShardCount int
}

// DistributeReport says what Distribute did, or found done.
type DistributeReport struct {
	// AlreadyDistributed is true when the database was distributed before
	// the call, which then changed nothing.
	AlreadyDistributed bool

	Evaluations int64    // evaluations whose per-unit values are distributed
	Rows        int64    // rows of unit_values
	ShardCount  int      // shards of unit_values (and of each evaluation's table)
	Workers     []string // the active worker nodes, as host:port

	Ungrouped    int // evaluations moved from their group of 100 to unit_values
	Merged       int // evaluations whose hash parts were rewritten into one table
	DroppedParts int // parts that killed logs left, dropped first
}

// String says what the report holds, in a line or two of prose.
func (r *DistributeReport) String() string {
	where := fmt.Sprintf("%d evaluations' per-unit values (%d rows) in %d shards on %d worker nodes (%s)",
		r.Evaluations, r.Rows, r.ShardCount, len(r.Workers), strings.Join(r.Workers, ", "))
	if r.AlreadyDistributed {
		return "already distributed, nothing changed: " + where
	}
	return fmt.Sprintf("distributed by sample ID: %s\nbefore: moved %d evaluations out of their groups of 100, rewrote %d stored in hash parts as one table, dropped %d parts of killed logs",
		where, r.Ungrouped, r.Merged, r.DroppedParts)
}

// maxShardCount is the most shards Citus gives a table.
const maxShardCount = 64000

// Distribute turns a verdict database on a Citus coordinator into a
// distributed one: unit_values becomes a Citus table distributed by
// sample_id, each evaluation's table a co-located distributed table whose
// shards are on the worker nodes. Pairing two evaluations by sample ID is
// then a co-located join, done on each worker for its shards.
//
// It refuses a database without the citus extension (ErrNotCitus), a
// coordinator without active workers (ErrNoWorkers) and a schema older than
// this verdict's (ErrSchemaOutdated). On a database already distributed it
// changes nothing and says so in the report. Run it as the role that
// migrated the database, or a superuser: it alters verdict's tables.
//
// It first drops the parts that killed logs left (see loadBuckets). Then,
// in one transaction, it flattens unit_values, since Citus distributes one
// level of partitions only: every evaluation's table is moved from its
// group of 100 to unit_values itself and the groups are dropped, and an
// evaluation stored in hash parts (a log over several connections) is
// rewritten into one plain table of the same name, rows, privileges and
// primary key. In the same transaction it distributes unit_values, which
// distributes every partition with it, co-located, and copies the rows to
// the shards; the copies left on the coordinator are truncated. An error
// anywhere leaves the database as it was. From then on
// verdict_units.create_values distributes each new evaluation's table as it
// creates it, and the rows of a log stream through the coordinator to the
// shards (migration 14). A writer's log, which Citus may not let reach
// shards that the role owning the functions made in the same transaction,
// loads on the coordinator instead, and verdict_units.attach_values
// distributes its table just before attaching it.
//
// Every other table stays the coordinator's own: experiments, runs,
// evaluation sets, evaluations, sample labels, comparisons, FDR ledgers,
// API tokens and predictions. They are small, and written in the same
// transaction as a log or a comparison. As Citus reference tables every
// such write would be a two-phase commit on every node, and every log would
// need every worker up. Nothing requires them on the workers: verdict's
// queries on per-unit values name an evaluation's partition with constant
// IDs, so they never join these tables there, and Citus plans an analyst's
// join of a local table with a distributed one by sending the few matching
// local rows to the workers.
func (s *Store) Distribute(ctx context.Context, opts DistributeOptions) (*DistributeReport, error) {
	if opts.ShardCount < 0 || opts.ShardCount > maxShardCount {
		return nil, fmt.Errorf("%w: %d shards; a table has 1 to %d, or 0 for Citus's default", ErrBadInput, opts.ShardCount, maxShardCount)
	}
	if err := s.writable(); err != nil {
		return nil, err
	}
	current, known, err := s.SchemaVersions(ctx)
	if err != nil {
		return nil, err
	}
	if current < known {
		return nil, fmt.Errorf("%w: it is at version %d of %d; migrate it first", ErrSchemaOutdated, current, known)
	}
	var citus bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')`).Scan(&citus); err != nil {
		return nil, fmt.Errorf("look for the citus extension: %w", err)
	}
	if !citus {
		return nil, ErrNotCitus
	}
	rep := &DistributeReport{}
	rows, err := s.pool.Query(ctx, `SELECT node_name || ':' || node_port FROM citus_get_active_worker_nodes() ORDER BY node_name, node_port`)
	if err != nil {
		return nil, fmt.Errorf("list the worker nodes: %w", err)
	}
	if rep.Workers, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return nil, fmt.Errorf("list the worker nodes: %w", err)
	}
	if rep.AlreadyDistributed, err = s.Distributed(ctx); err != nil {
		return nil, err
	}
	if rep.AlreadyDistributed {
		return rep, s.countDistributed(ctx, rep)
	}
	if len(rep.Workers) == 0 {
		return nil, ErrNoWorkers
	}

	for _, id := range s.unattached(ctx) {
		rep.DroppedParts += s.dropUnattached(ctx, id)
	}
	err = s.transact(ctx, func(tx pgx.Tx) error {
		// Logs attach under SHARE UPDATE EXCLUSIVE: none attaches meanwhile.
		if _, err := tx.Exec(ctx, `LOCK TABLE unit_values IN EXCLUSIVE MODE`); err != nil {
			return fmt.Errorf("lock unit_values: %w", err)
		}
		var done bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'unit_values'::regclass)`).Scan(&done); err != nil {
			return fmt.Errorf("read Citus metadata: %w", err)
		}
		if done { // by a concurrent call, which held the lock first
			rep.AlreadyDistributed = true
			return errRollback
		}
		if err := flattenValues(ctx, tx, rep); err != nil {
			return err
		}
		if opts.ShardCount > 0 {
			if _, err := tx.Exec(ctx, `SELECT set_config('citus.shard_count', $1, true)`, strconv.Itoa(opts.ShardCount)); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `SELECT create_distributed_table('unit_values', 'sample_id')`); err != nil {
			return fmt.Errorf("distribute unit_values: %w", err)
		}
		// The rows are on the shards now; their local copies only take space.
		if _, err := tx.Exec(ctx, `
			SELECT truncate_local_data_after_distributing_table(inhrelid::regclass)
			FROM pg_inherits WHERE inhparent = 'unit_values'::regclass`); err != nil {
			return fmt.Errorf("truncate the local copies of per-unit values: %w", err)
		}
		return nil
	})
	if err != nil && !errors.Is(err, errRollback) {
		return nil, err
	}
	return rep, s.countDistributed(ctx, rep)
}

// countDistributed fills in the report's counts of a distributed database.
func (s *Store) countDistributed(ctx context.Context, rep *DistributeReport) error {
	err := s.pool.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM pg_inherits WHERE inhparent = 'unit_values'::regclass),
		       (SELECT count(*) FROM unit_values),
		       (SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'unit_values'::regclass)`).
		Scan(&rep.Evaluations, &rep.Rows, &rep.ShardCount)
	if err != nil {
		return fmt.Errorf("count the distributed per-unit values: %w", err)
	}
	return nil
}

// Distributed reports whether the database's per-unit values are a Citus
// distributed table (`verdict db distribute`): the pairing and resampling
// queries of summary.go then run on the workers, shard by shard. On a
// server without Citus it is false.
func (s *Store) Distributed(ctx context.Context) (bool, error) {
	var d bool
	err := s.pool.QueryRow(ctx, `
		SELECT to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL
		   AND EXISTS (SELECT 1 FROM pg_catalog.pg_class WHERE oid = to_regclass('unit_values'))`).Scan(&d)
	if err != nil || !d {
		return false, err
	}
	// A separate query: pg_dist_partition exists only with Citus.
	err = s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = 'unit_values'::regclass)`).Scan(&d)
	if err != nil {
		return false, fmt.Errorf("read Citus metadata: %w", err)
	}
	return d, nil
}

// valuesTable is an evaluation's table of per-unit values, as it is attached.
type valuesTable struct {
	name    string // quoted, schema-qualified
	parent  string // quoted: unit_values or a group
	id      int64
	bound   string // FOR VALUES IN (id)
	grouped bool   // a partition of a group, not of unit_values
	parts   bool   // partitioned by hash into parts
}

var listBound = regexp.MustCompile(`^FOR VALUES IN \(([0-9]+)\)$`)

// flattenValues makes unit_values a partitioned table of one level, each
// evaluation's table a plain table attached to it directly, in tx. The
// result is a valid layout on a single server too; attach_values groups the
// evaluations logged next only while the database is not distributed.
func flattenValues(ctx context.Context, tx pgx.Tx, rep *DistributeReport) error {
	const groups = `
		SELECT c.oid FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'unit_values'::regclass AND c.relkind = 'p'
		  AND c.relnamespace = 'verdict_units'::regnamespace AND c.relname ~ '^unit_values_g[0-9]+$'`
	rows, err := tx.Query(ctx, `
		WITH g AS (`+groups+`)
		SELECT c.oid::regclass::text, i.inhparent::regclass::text, pg_get_expr(c.relpartbound, c.oid), i.inhparent IN (SELECT oid FROM g), c.relkind = 'p'
		FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent IN (SELECT oid FROM g)
		   OR (i.inhparent = 'unit_values'::regclass AND c.oid NOT IN (SELECT oid FROM g))
		ORDER BY c.oid`)
	if err != nil {
		return fmt.Errorf("list the tables of per-unit values: %w", err)
	}
	var tables []valuesTable
	var groupNames []string
	for rows.Next() {
		var t valuesTable
		if err := rows.Scan(&t.name, &t.parent, &t.bound, &t.grouped, &t.parts); err != nil {
			rows.Close()
			return err
		}
		m := listBound.FindStringSubmatch(t.bound)
		if m == nil {
			rows.Close()
			return fmt.Errorf("per-unit values %s are attached %s, not for one evaluation ID", t.name, t.bound)
		}
		t.id, _ = strconv.ParseInt(m[1], 10, 64)
		tables = append(tables, t)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list the tables of per-unit values: %w", err)
	}
	rows, err = tx.Query(ctx, `SELECT oid::regclass::text FROM (`+groups+`) g`)
	if err != nil {
		return fmt.Errorf("list the groups of per-unit values: %w", err)
	}
	if groupNames, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return fmt.Errorf("list the groups of per-unit values: %w", err)
	}

	// Detach every table to move, drop the emptied groups (whose lists of
	// IDs would overlap the tables'), rewrite, then attach.
	for _, t := range tables {
		if !t.grouped && !t.parts {
			continue
		}
		if _, err := tx.Exec(ctx, fmt.Sprintf(`ALTER TABLE %s DETACH PARTITION %s`, t.parent, t.name)); err != nil {
			return fmt.Errorf("detach the per-unit values of evaluation %d: %w", t.id, err)
		}
	}
	for _, g := range groupNames {
		if _, err := tx.Exec(ctx, `DROP TABLE `+g); err != nil {
			return fmt.Errorf("drop group %s: %w", g, err)
		}
	}
	for _, t := range tables {
		if !t.grouped && !t.parts {
			continue
		}
		if t.parts {
			if err := mergeParts(ctx, tx, t); err != nil {
				return fmt.Errorf("rewrite the per-unit values of evaluation %d in one table: %w", t.id, err)
			}
			rep.Merged++
		}
		if t.grouped {
			rep.Ungrouped++
		}
		if _, err := tx.Exec(ctx, fmt.Sprintf(`ALTER TABLE unit_values ATTACH PARTITION %s %s`, t.name, t.bound)); err != nil {
			return fmt.Errorf("attach the per-unit values of evaluation %d: %w", t.id, err)
		}
	}
	return nil
}

// mergeParts rewrites t, detached and partitioned by hash into parts, as a
// plain table of the same name: the same columns and CHECK constraint as
// create_values makes, the same rows, owner and privileges, and its primary
// key. The parts are dropped with it.
func mergeParts(ctx context.Context, tx pgx.Tx, t valuesTable) error {
	var cols, owner string
	if err := tx.QueryRow(ctx, `SELECT verdict_units.values_columns($1), relowner::regrole::text FROM pg_class WHERE oid = $2::regclass`,
		t.id, t.name).Scan(&cols, &owner); err != nil {
		return err
	}
	// The privileges as listed, the owner's included (attach_values revoked
	// INSERT from the role that logged); none listed means the defaults.
	var listed bool
	if err := tx.QueryRow(ctx, `SELECT relacl IS NOT NULL FROM pg_class WHERE oid = $1::regclass`, t.name).Scan(&listed); err != nil {
		return err
	}
	rows, err := tx.Query(ctx, `
		SELECT a.privilege_type, CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE a.grantee::regrole::text END
		FROM pg_class c, aclexplode(c.relacl) a
		WHERE c.oid = $1::regclass`, t.name)
	if err != nil {
		return err
	}
	grants, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ Privilege, Grantee string }])
	if err != nil {
		return err
	}
	name := fmt.Sprintf("unit_values_%d", t.id)
	merged := pgx.Identifier{"verdict_units", name + "_merged"}.Sanitize()
	stmts := []string{
		fmt.Sprintf(`CREATE TABLE %s (%s)`, merged, cols),
		fmt.Sprintf(`INSERT INTO %s (evaluation_id, sample_id, draw, vals) SELECT evaluation_id, sample_id, draw, vals FROM %s`, merged, t.name),
		`DROP TABLE ` + t.name,
		fmt.Sprintf(`ALTER TABLE %s RENAME TO %s`, merged, pgx.Identifier{name}.Sanitize()),
		fmt.Sprintf(`ALTER TABLE %s OWNER TO %s`, t.name, owner),
	}
	if listed {
		stmts = append(stmts, fmt.Sprintf(`REVOKE ALL ON %s FROM PUBLIC, %s`, t.name, owner))
	}
	for _, g := range grants {
		stmts = append(stmts, fmt.Sprintf(`GRANT %s ON %s TO %s`, g.Privilege, t.name, g.Grantee))
	}
	stmts = append(stmts, fmt.Sprintf(`ALTER TABLE %s ADD PRIMARY KEY (evaluation_id, sample_id, draw)`, t.name))
	for _, q := range stmts {
		if _, err := tx.Exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}
