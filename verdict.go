// Package verdict carries the data files the verdict binary ships with: the
// GroupLens MovieLens "latest-small" ratings that `verdict demo` trains and
// evaluates its recommenders on (testdata/movielens-latest-small, with the
// data set's README and licence). The code lives in the packages below it.
package verdict

import "embed"

// MovieLens holds testdata/movielens-latest-small/ratings.csv.gz (userId,
// movieId, rating, timestamp; 100,836 ratings by 610 users) and its README.
//
//go:embed testdata/movielens-latest-small/ratings.csv.gz testdata/movielens-latest-small/README.txt
var MovieLens embed.FS
