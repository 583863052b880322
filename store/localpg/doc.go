// Package localpg runs verdict's embedded default database: a private
// PostgreSQL cluster for one user, kept under $VERDICT_HOME and reached only
// through a Unix socket in that folder.
//
// verdict uses it when no database URL is given (no --database-url,
// VERDICT_DATABASE_URL or DATABASE_URL). Tests use it too, so running them needs
// nothing but PostgreSQL's server binaries.
//
// # What it does
//
// [Cluster.Ensure] makes the database usable and returns its URL:
//
//   - On first use it finds the server binaries ([FindBinaries]), runs initdb
//     once into $VERDICT_HOME/data, writes the server settings into the
//     cluster's postgresql.conf, starts the server with pg_ctl and creates the
//     database "verdict".
//   - Later it reuses a running server. When the socket answers, Ensure returns
//     without taking any lock, so the common case costs one connection.
//   - After a crash or a reboot it starts the server again. A postmaster.pid
//     left behind by a dead server, or one whose PID now belongs to an unrelated
//     process, is removed first, and a start that races the last children of a
//     killed server is retried for a few seconds.
//
// Two verdict processes that start at the same moment serialise on an
// exclusive lock on $VERDICT_HOME/.lock and re-check the cluster's state once
// they hold it, so initdb runs once and one server starts.
//
// # Layout of $VERDICT_HOME
//
//	.lock         the lock file
//	cluster.json  when the cluster was created, and with which PostgreSQL
//	data/         the cluster (PGDATA)
//	run/          the server's Unix socket (.s.PGSQL.5432)
//	server.log    the server's log
//
// cluster.json outlives data/: when it says a cluster was created and data/
// is missing or empty (moved away, deleted, a disk not mounted), Ensure
// refuses with [ErrClusterGone] rather than quietly create an empty cluster
// in its place. Removing the whole home starts afresh.
//
// # Security
//
// The server does not listen on TCP (listen_addresses is empty). Its socket lives
// in a folder only the cluster's owner can enter, with unix_socket_permissions
// 0700, so the cluster uses trust authentication for its one superuser,
// "verdict".
//
// That holds only if no other user can replace the home or anything in it.
// As ssh does with ~/.ssh, Ensure and Stop refuse ([ErrUnsafeHome]) a home
// that is writable by group or others, or a folder above it, up to /, that
// is (unless it has the sticky bit, as /tmp has), and any of them that
// belongs to another user than the one running verdict or root
// ([Cluster.CheckHome]).
//
// PostgreSQL refuses to run as root. When verdict runs as root, the cluster
// belongs to the OS user "postgres": initdb and pg_ctl run under that account,
// it owns data/, run/ and server.log, and every ancestor folder of the home
// that the account cannot enter gets the search bit for others (o+x), which
// Ensure reports through [Cluster.Notices]. Clients connect as root through the
// socket.
//
// # Settings
//
// The settings favour bulk ingest and pairing without giving up durability:
// a quarter of the machine's memory for shared_buffers (256MB to 4GB),
// max_wal_size 4GB, checkpoints every 30 minutes, and
// wal_level = minimal, which lets COPY into a table created in the same
// transaction skip the WAL. fsync, synchronous_commit and full_page_writes stay
// on. They are written into postgresql.conf at initdb time, so a server started
// by hand with pg_ctl behaves the same; a cluster created before keeps its own
// (ALTER SYSTEM SET shared_buffers, and a restart, changes it).
//
// # What it does not do
//
// It knows nothing of verdict's schema and runs no migrations; package store
// does that once it has the URL. It does not manage a shared or remote server,
// never opens a TCP port, and does not upgrade a cluster to a newer PostgreSQL
// major version: it looks for the binaries of the version that created the
// cluster.
package localpg
