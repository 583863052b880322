package progress_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/verdict-ml/verdict/internal/progress"
)

// ExampleBegin logs five batches of 4,096 rows with a progress line every
// two, in JSON, and prints the counts of each line; times, rates and memory
// vary from run to run.
func ExampleBegin() {
	var out bytes.Buffer
	src := &counter{}
	lg, err := progress.Begin(&out, src, progress.Options{Command: "evaluate", Every: 2, Format: "json"})
	if err != nil {
		panic(err)
	}
	for range 5 {
		lg.Batch(4096)
	}
	lg.End(nil)

	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var line struct {
			Msg           string
			Rows, Batches int
			Outcome       string
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			panic(err)
		}
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%-8s rows=%d batches=%d %s", line.Msg, line.Rows, line.Batches, line.Outcome)))
	}
	// Output:
	// start    rows=0 batches=0
	// progress rows=8192 batches=2
	// progress rows=16384 batches=4
	// finish   rows=20480 batches=5 ok
}
