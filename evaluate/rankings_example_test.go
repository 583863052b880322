package evaluate_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/verdict-ml/verdict/evaluate"
)

// printRankings prints every row of r: its sample ID, its hits as x (hit)
// and . (miss), and R.
func printRankings(r evaluate.Rankings) {
	for {
		b, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			panic(err)
		}
		for i := range b.Len() {
			hits := ""
			for _, h := range b.Row(i) {
				hits += map[bool]string{true: "x", false: "."}[h]
			}
			fmt.Printf("%s %s R=%d\n", b.SampleIDs[i], hits, b.Relevant[i])
		}
	}
}

func ExampleOpenNumPyRankings() {
	dir := filepath.Join("testdata", "rankings")
	r, err := evaluate.OpenNumPyRankings(
		filepath.Join(dir, "items.npy"),   // np.save: int32, 6 x 4, best first
		filepath.Join(dir, "scores.npy"),  // checked: finite, descending
		filepath.Join(dir, "targets.npz"), // scipy.sparse.save_npz of a CSR matrix
		filepath.Join(dir, "ids_str.npy"), // sample IDs
		evaluate.RankingOptions{Width: 3},
	)
	if err != nil {
		panic(err)
	}
	defer r.Close()
	printRankings(r)
	// Output:
	// u0 .xx R=2
	// u1 ... R=0
	// u2 ..x R=2
	// u3 ... R=2
	// u4 x.. R=1
	// ü5 ... R=0
}

func ExampleOpenTRECRankings() {
	dir := filepath.Join("testdata", "rankings")
	r, err := evaluate.OpenTRECRankings(filepath.Join(dir, "trec.run"), filepath.Join(dir, "trec.qrels"), evaluate.RankingOptions{Width: 5})
	if err != nil {
		panic(err)
	}
	defer r.Close()
	printRankings(r)
	fmt.Println("queries of the qrels missing from the run:", r.MissingQueries())
	// Output:
	// q1 xx..x R=3
	// q2 .x... R=2
	// q4 ..... R=0
	// q5 ..... R=0
	// q6 .x..x R=2
	// q3 ..... R=2
	// queries of the qrels missing from the run: 1
}

func ExampleOpenTableRankings() {
	dir, err := os.MkdirTemp("", "verdict")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	predictions := filepath.Join(dir, "predictions.csv")
	targets := filepath.Join(dir, "targets.csv")
	os.WriteFile(predictions, []byte("sample_id,item,score\nalice,tea,0.9\nalice,cake,0.7\nalice,jam,0.7\nbob,jam,0.2\nbob,tea,0.1\n"), 0o644)
	os.WriteFile(targets, []byte("sample_id,item\nalice,cake\nbob,tea\nbob,scones\ncarol,jam\n"), 0o644)

	r, err := evaluate.OpenTableRankings(predictions, targets, evaluate.RankingOptions{})
	if err != nil {
		panic(err)
	}
	defer r.Close()
	printRankings(r)
	fmt.Println("samples of the targets without predictions:", r.MissingSamples())
	// Output:
	// alice ..x R=1
	// bob .x. R=2
	// carol ... R=1
	// samples of the targets without predictions: 1
}
