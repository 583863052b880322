package input

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// NameProblem says what is wrong with names[i], the name of the i-th
// column of a file whose format calls its columns kind ("column", "key",
// "array"), or "" when nothing is: no name, a pandas index written as a
// column, or a name already in seen (the earlier names' indexes), to which
// it adds names[i].
func NameProblem(names []string, i int, kind string, seen map[string]int) string {
	name := names[i]
	if name == "" {
		if kind == "column" && i == 0 {
			return "column 1 has no name (was a pandas index written without index=False?)"
		}
		return fmt.Sprintf("%s %d has no name", kind, i+1)
	}
	if kind == "column" && strings.HasPrefix(name, "Unnamed: ") {
		return fmt.Sprintf("column %d is named %q (was a pandas index written without index=False?)", i+1, name)
	}
	if j, dup := seen[name]; dup {
		return fmt.Sprintf("%s %q appears twice (%ss %d and %d)", kind, name, kind, j+1, i+1)
	}
	seen[name] = i
	return ""
}

// ParquetColumns are the top-level columns of f and their names, without
// the pandas index columns (__index_level_N__).
func ParquetColumns(f *parquet.File) (names []string, leafs []*parquet.Column) {
	for _, c := range f.Root().Columns() {
		if strings.HasPrefix(c.Name(), "__index_level_") {
			continue
		}
		names = append(names, c.Name())
		leafs = append(leafs, c)
	}
	return names, leafs
}

// ByteSize is n bytes in the largest binary unit that divides it: "2 GiB",
// "512 MiB", "64 KiB", else "1000 bytes".
func ByteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + " GiB"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
