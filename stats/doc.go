// Package stats holds the paired statistical tests verdict decides with:
// pure functions on float64 slices, built on gonum's distributions. It has
// no database and no I/O; package store feeds it aligned pairs and package
// report renders its results.
//
// Every difference is left − right. Tests are two-sided unless a function
// says otherwise. Results are plain structs whose JSON field names are the
// ones `verdict stats` prints.
//
// # Errors
//
// Bad data, the kind a user can cause (too few observations, NaN or Inf,
// labels that are not 0/1, no overlap between two samples), returns an error
// wrapping one of the sentinels below, with a message that says what was
// wrong. Misuse by a programmer, such as slices of different lengths where
// the API promises equal ones, panics with a message starting "stats: ".
//
// # Undefined values
//
// Where a statistic is undefined (zero variance, say), the functions return
// a documented, finite answer wherever one exists, and otherwise NaN or ±Inf
// together with a note in the result's Notes saying why. They never divide
// by zero silently.
package stats
