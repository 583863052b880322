// Package report renders what verdict shows people: aligned text tables that
// fit a terminal (with colour there, never with NO_COLOR), the same tables as
// Markdown and CSV, numbers at 3 to 4 significant digits and intervals as
// "0.412 [0.398, 0.427]", plots as SVG or PNG (critical-difference
// diagrams, forest plots, histograms, values over time, drawn with
// gonum/plot), and self-contained HTML pages that inline their plots.
//
// It formats and draws values it is given; it does not query the database
// or compute statistics.
package report
