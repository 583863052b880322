// Package verdict carries the data files the verdict binary ships with: the
// GroupLens MovieLens "latest-small" ratings that `verdict demo` trains and
// evaluates its recommenders on (testdata/movielens-latest-small, with the
// data set's README and licence), and the Wisconsin Diagnostic Breast Cancer
// data its classifiers learn from (testdata/breast-cancer-wisconsin, with a
// README giving its source, licence and citation). The code lives in the
// packages below it.
package verdict

import "embed"

// MovieLens holds testdata/movielens-latest-small/ratings.csv.gz (userId,
// movieId, rating, timestamp; 100,836 ratings by 610 users) and its README.
//
//go:embed testdata/movielens-latest-small/ratings.csv.gz testdata/movielens-latest-small/README.txt
var MovieLens embed.FS

// BreastCancer holds testdata/breast-cancer-wisconsin/breast_cancer.csv.gz
// (the UCI Wisconsin Diagnostic Breast Cancer data as scikit-learn bundles
// it: a header line "569,30,malignant,benign", then 569 rows of 30 features
// and a label, 0 = malignant, 1 = benign) and its README, which gives the
// source, the CC BY 4.0 licence and the citation.
//
//go:embed testdata/breast-cancer-wisconsin/breast_cancer.csv.gz testdata/breast-cancer-wisconsin/README.txt
var BreastCancer embed.FS
