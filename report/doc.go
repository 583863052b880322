// Package report renders everything verdict shows, to people and to
// scripts. Every front end (the CLI, the demo, the HTML report, the HTTP
// server) writes its output through it, so that a number, a p-value or a
// JSON document reads the same wherever it appears.
//
// # Tables
//
// Table is an aligned text table that fits a terminal (with colour there,
// never with NO_COLOR); the same table writes as GitHub Markdown and as
// CSV. FieldTable turns a struct into a FIELD/VALUE table for Markdown and
// CSV.
//
// # Numbers
//
// Num, Signed and Nums print numbers at 3 to 4 significant digits, and
// Interval an estimate with its bounds as "0.412 [0.398, 0.427]". PValue
// and PValueText print p-values for cells and for sentences alike, never
// rounding p to the other side of alpha; P and PText are their forms with
// no alpha. Thousands and Count print counts: "1,234,567", and "26,000"
// for an estimate good to two figures. CSVNum, CSVPtr, CSVTime and
// CSVInterval are the cells of CSV tables: full precision, an empty cell
// for none.
//
// # Results as JSON and fields
//
// WriteJSON writes any result as indented JSON with its fields in
// declaration order, maps in key order and NaN as null. WriteFields writes
// the same result as aligned "name  value" lines for a terminal.
//
// # Plots and pages
//
// CriticalDifference, Forest, Histogram and History draw plots with
// gonum/plot; a Figure saves as SVG or PNG. Page.WriteHTML writes a
// self-contained HTML page that inlines its tables and plots.
//
// Report formats and draws values it is given; it does not query the
// database, compute statistics or decide a winner.
package report
