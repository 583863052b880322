// Command scoreconv converts a wide per-user scores CSV (as written by
// gen_scores.py: sample_id then one column per metric) into the Parquet and
// NumPy .npz files a training job would write, for the ingest benchmark.
//
//	go run ./bench/scoreconv scores.csv scores.parquet scores.npz
package main

import (
	"archive/zip"
	"bufio"
	"encoding/binary"
	"encoding/csv"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"sort"
	"strconv"

	"github.com/parquet-go/parquet-go"
)

func main() {
	if len(os.Args) != 4 {
		log.Fatal("usage: scoreconv IN.csv OUT.parquet OUT.npz")
	}
	ids, names, cols := readCSV(os.Args[1])
	if err := writeParquet(os.Args[2], ids, names, cols); err != nil {
		log.Fatal(err)
	}
	if err := writeNPZ(os.Args[3], ids, names, cols); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("wrote %s and %s: %d rows, %d metrics\n", os.Args[2], os.Args[3], len(ids), len(names))
}

func readCSV(path string) (ids []string, names []string, cols [][]float64) {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReaderSize(f, 1<<20))
	r.ReuseRecord = true
	head, err := r.Read()
	if err != nil {
		log.Fatal(err)
	}
	names = append([]string(nil), head[1:]...)
	cols = make([][]float64, len(names))
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		ids = append(ids, rec[0])
		for i := range names {
			v, err := strconv.ParseFloat(rec[i+1], 64)
			if err != nil {
				log.Fatal(err)
			}
			cols[i] = append(cols[i], v)
		}
	}
	return ids, names, cols
}

func writeParquet(path string, ids, names []string, cols [][]float64) error {
	group := parquet.Group{"sample_id": parquet.String()}
	for _, n := range names {
		group[n] = parquet.Leaf(parquet.DoubleType)
	}
	schema := parquet.NewSchema("scores", group)
	// The schema orders columns by name; map each to its data.
	order := make([]int, 0, len(names)+1) // -1 is sample_id
	for _, f := range schema.Fields() {
		if f.Name() == "sample_id" {
			order = append(order, -1)
			continue
		}
		order = append(order, sort.SearchStrings(sortedCopy(names), f.Name()))
	}
	byName := sortedIndex(names)
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	w := parquet.NewWriter(out, schema, parquet.Compression(&parquet.Snappy))
	rows := make([]parquet.Row, 0, 4096)
	for r := range ids {
		row := make(parquet.Row, len(order))
		for c, f := range schema.Fields() {
			if f.Name() == "sample_id" {
				row[c] = parquet.ValueOf(ids[r]).Level(0, 0, c)
			} else {
				row[c] = parquet.ValueOf(cols[byName[f.Name()]][r]).Level(0, 0, c)
			}
		}
		rows = append(rows, row)
		if len(rows) == cap(rows) {
			if _, err := w.WriteRows(rows); err != nil {
				return err
			}
			rows = rows[:0]
		}
	}
	if _, err := w.WriteRows(rows); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return out.Close()
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}

func sortedIndex(names []string) map[string]int {
	m := make(map[string]int, len(names))
	for i, n := range names {
		m[n] = i
	}
	return m
}

// writeNPZ writes what np.savez writes: a zip of .npy members.
func writeNPZ(path string, ids, names []string, cols [][]float64) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	z := zip.NewWriter(out)
	width := 0
	for _, id := range ids {
		width = max(width, len([]rune(id)))
	}
	w, err := z.CreateHeader(&zip.FileHeader{Name: "sample_id.npy", Method: zip.Store})
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	writeNPYHeader(bw, fmt.Sprintf("<U%d", width), len(ids))
	for _, id := range ids {
		rs := []rune(id)
		for i := 0; i < width; i++ {
			var r rune
			if i < len(rs) {
				r = rs[i]
			}
			binary.Write(bw, binary.LittleEndian, uint32(r))
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	for i, n := range names {
		w, err := z.CreateHeader(&zip.FileHeader{Name: n + ".npy", Method: zip.Store})
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(w, 1<<20)
		writeNPYHeader(bw, "<f8", len(ids))
		var b [8]byte
		for _, v := range cols[i] {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			bw.Write(b[:])
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	if err := z.Close(); err != nil {
		return err
	}
	return out.Close()
}

func writeNPYHeader(w io.Writer, descr string, n int) {
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }", descr, n)
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	header := dict + fmt.Sprintf("%*s", pad, "") + "\n"
	w.Write([]byte("\x93NUMPY\x01\x00"))
	binary.Write(w, binary.LittleEndian, uint16(len(header)))
	w.Write([]byte(header))
}
