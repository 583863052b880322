// Package evaluate scores rankings. It reads a model's ranked predictions
// with the test targets, computes ranking metrics for every sample, and
// fingerprints the targets so that evaluations are compared only on the
// same set. Reading per-unit score files computed elsewhere is package
// scores' work.
//
// # Ranking inputs
//
// A Rankings is a stream of Batches. Each row of a batch is one sample: its ID,
// whether each of its top predictions is relevant (the hit matrix), and R, its
// number of distinct relevant items. Relevance is binary. Three readers cover
// the ways rankings are usually saved:
//
//   - OpenNumPyRankings: items.npy (n×K item indices, best first), optional
//     scores.npy (used only to check that scores are finite and descending),
//     targets.npz as scipy.sparse.save_npz writes a CSR matrix (a stored value
//     that is not zero makes the item relevant; CSC and COO are refused), and
//     optional sample IDs (the row index otherwise). Every array is streamed.
//   - OpenTRECRankings: a TREC run and its qrels, where a relevance above 0
//     makes a document relevant. Like trec_eval, the reader ignores the run's
//     rank column. It ranks each query's documents by score, and breaks ties
//     by document ID in descending byte order. A qrels query with relevant
//     documents that the run does not name becomes a row with no hits, as
//     trec_eval -c counts it (MissingQueries).
//   - OpenTableRankings: long tables in CSV, TSV (either optionally gzipped)
//     or Parquet. Predictions are sample_id, item and rank or score, grouped
//     by sample, and score ties are broken as in trec_eval. Targets are
//     sample_id and item. A sample of the targets without predictions is a
//     row with no hits (MissingSamples).
//
// Text inputs (TREC files and CSV or TSV tables) are decompressed whenever
// they start with the gzip magic bytes, whatever their names, and one named
// .gz that does not is refused rather than read as plain text. A line of
// them (a record of a CSV or TSV table) holds at most 4 MiB and a table's
// header at most 1,024 columns, both checked while they are read, so that a
// gzip stream that expands to one line of gigabytes is refused at that line
// after 4 MiB (see internal/input's limits).
//
// Some input is held in memory by design: the qrels and a targets table,
// read whole, and a TREC run whose queries are not grouped, as well as the
// IDs that the readers keep while they stream and the one query or sample
// they rank. The TREC and table readers estimate what they hold as they
// read (the bytes of the IDs kept, plus a fixed cost per entry) and refuse
// an input that would hold more than RankingOptions.MaxHeldBytes, 2 GiB
// unless set, with an error that names the line where it passed the bound
// and says what to do: split the evaluation into parts, or sort a run by
// query so that it streams. So a few megabytes of gzip that expand to
// hundreds of millions of distinct qrels lines are refused after about
// 2 GiB, rather than growing until the process dies. Real inputs hold far
// less: MS MARCO's passage qrels about 110 MiB, and the targets of a
// million users with ten items each about 250 MiB.
//
// Every reader takes a sample ID (a TREC query) as its text without the
// white space around it (spaces, tabs, no-break spaces), and so do the table
// readers for an item ID: " u1" in a CSV table, "u1 " in a NumPy array of
// IDs and u1 in a TREC run are the same sample, in the rows and in the
// fingerprint. An ID of white space alone is missing, and a sample ID that
// is not UTF-8 text, which the store could not keep, is refused with its
// file and line or row. Package scores reads
// the sample IDs of per-unit score files by the same rule, through the same
// code (internal/input), so that `verdict log` and `verdict evaluate` store
// a user under the same ID and their evaluations pair.
//
// A sample without relevant items is a row without targets (R = 0).
// RankingOptions sets the rank positions to read (Width, the largest cutoff), the batch size,
// and whether the predictions are validated (item indices inside the
// targets' columns, no item twice, finite scores). Errors about the content
// of an input wrap ErrBadInput and name the file, and the line or record,
// the row and the sample ID where they apply. A table that is not named .csv, .tsv or .parquet
// gives an error wrapping ErrUnknownFormat.
//
// InMemoryRankings serves rankings that a Go program holds in memory (item IDs
// as int64), as `verdict demo` does, without writing files.
//
// # Metrics
//
// A Metric computes per-row values from a batch's hit matrix. The built-in
// ones take cutoffs k, where hits@k counts the relevant items among the first k
// predictions:
//
//   - ndcg@k: the sum of 1/log2(rank+1) over the hits in the first k ranks,
//     divided by the same sum for an ideal ranking, whose first min(k, R)
//     predictions are hits (NDCG);
//   - recall@k: hits@k / R (Recall);
//   - calibrated_recall@k: hits@k / min(k, R), which a perfect ranking takes
//     to 1 whatever R is (CalibratedRecall);
//   - precision@k: hits@k / k (Precision);
//   - hit_rate@k: 1 if any of the first k predictions is relevant (HitRate);
//   - mrr@k: 1/rank of the first hit when that rank is at most k (MRR);
//   - map@k: the sum of precision@i over the hits i ≤ k, divided by
//     min(k, R) as Spark and RecBole do (MAP). trec_eval's map_cut divides by R,
//     so for rows with R > k multiply map@k by min(k, R)/R to compare.
//
// Ranks past a row's predictions are misses. A row without targets keeps its
// place with 0 in every column, so values stay aligned with sample IDs, but no
// mean counts it. ParseMetrics reads specs such as "ndcg@10,20,recall@20";
// DefaultMetrics is calibrated_recall and ndcg at the prediction width. A Go
// program may implement Metric for a metric of its own.
//
// # Scoring
//
// An Evaluator (NewEvaluator) applies a set of metrics to a batch with Score.
// The reader builds the hit matrix once. Each row's hit ranks are then
// extracted once and shared by every built-in metric, so adding a metric or
// a cutoff costs little. Evaluator.Start runs a Scoring over a Rankings.
// One goroutine reads batches while several score them in parallel, and the
// rows come back in input order: row by row from Next (rows with targets
// only, with draw numbers for repeated sample IDs), or all at once from
// Drain. Summary gives the means over rows with targets, as compensated sums,
// and the counts of rows, scored rows and distinct units. A Scoring satisfies
// the store's row source interfaces, so an evaluation is logged while it is
// computed, together with the fingerprint of its targets. Run does all of
// this as `verdict evaluate` does: score, write the per-user values
// (scores.Writer), log, and return the aggregates.
//
// Run can also describe some rows in detail (RunOptions.Debug, the first N
// rows with targets or given sample IDs, at most MaxDebugRows): each
// DebugRow has the row's top predictions with their scores, its relevant
// items (at most MaxDebugTargets, with their count), its hit ranks and its
// value of every per-user metric, the very values of the per-user output.
// The readers put each row's predicted items and scores on the batches
// (Batch.Item, Batch.Score) in the form they read them, and keep the
// relevant items of the selected rows only. When the evaluation is logged,
// its debug rows are stored with it.
//
// # Whole-set metrics
//
// A WholeSetMetric, such as CatalogueCoverage, has one value for the whole
// evaluation and none per user: it sees every batch in input order
// (Update) and gives its value at the end (Aggregate). Its keys join the
// aggregates, and nothing else: no per-user column, no per-unit value in
// the store.
//
// That changes how two evaluations are compared. A per-user metric is
// compared user by user: the store pairs the two evaluations' values by
// sample ID, and the paired tests resample or permute the per-user
// differences. A whole-set metric has no per-user value, so there is
// nothing to pair; the store refuses to pair one. It is compared with the
// paired bootstrap over users instead: each replicate draws the scored
// users with replacement, the same users for both models, and recomputes
// the metric on each model's rankings of the users drawn; the interval and
// p-value come from the replicate differences. WholeSetBootstrap does this
// for two models' in-memory rankings of the same users, with the seeded
// replicate draws of stats.PairedBootstrapCounts. It needs the rankings
// themselves, not the stored evaluations, which keep the whole-set value
// alone. Under resampling a set count such as coverage is biased low (a
// user drawn twice adds no item), so the replicate differences of two
// models of very different coverage sit below the observed difference;
// read the interval as evidence about the sign of the gap more than about
// its size.
//
// # Target fingerprints
//
// Every ranking reader fingerprints its targets while it streams
// (Rankings.Targets, complete at io.EOF). The fingerprint is a multiset hash
// (package fingerprint) over the samples with at least one relevant item:
// each sample ID with its distinct relevant items as text, where a NumPy
// column index is written in decimal. So it does not depend on row order, and
// the same targets give the same fingerprint from any input format.
// FingerprintTargets computes it from a targets file alone (CSR .npz, qrels
// or long table), for scores computed elsewhere and logged with
// `verdict log --target-fingerprint`. It reads the targets with the readers'
// own code, so the two agree: without sample IDs a matrix row's ID is its
// index in decimal for both, as `verdict evaluate` and `verdict fingerprint`
// without --sample-ids.
//
// # What it does not do
//
// The package touches the database only through package store, when Run
// is asked to log: a Scoring is a row source that the store reads while the
// rows are scored. It aggregates per-user metrics only into means and
// counts, and it does not compare stored evaluations (package compare
// does); WholeSetBootstrap compares two models' rankings held in memory, on
// a whole-set metric only. It does not read per-unit score
// files (package scores does). It does not guess a format from a file's
// content, except for gzip, as above.
package evaluate
