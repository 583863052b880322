// Package stats holds the paired statistical tests verdict decides with:
// pure functions on float64 slices, built on gonum's distributions. It has
// no database and no I/O; package compare feeds it aligned pairs and package
// report renders its results.
//
// Every difference is left − right. Tests are two-sided unless a function
// says otherwise. Results are plain structs whose JSON field names are the
// ones `verdict stats` prints.
//
// # Errors
//
// Bad data, the kind a user can cause (inputs of different lengths, too few
// observations, NaN or Inf, labels that are not 0/1, no overlap between two
// samples), returns an error wrapping one of the sentinels in errors.go,
// with a message that says what was wrong and where. Misuse that only a
// programmer can cause panics with a message starting "stats: ".
//
// # Undefined values
//
// Where a statistic is undefined (zero variance, say), the functions return
// a documented answer: finite wherever one exists (all differences zero: t =
// 0, p = 1), otherwise ±Inf with a Note in the result's Notes saying why
// (all differences equal to c ≠ 0: t = ±Inf, p = 0). They never divide by
// zero silently. A Note is a code with the number it is about, documented in
// notes.go; package report says it in words. JSON has no Inf or NaN;
// `verdict stats` prints them as null next to the notes.
//
// # No words
//
// The package returns numbers and structured decisions (Decide); it writes
// no sentences. Error messages say what was wrong with the input; verdicts,
// notes and tables are package report's.
package stats
