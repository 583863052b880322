package scores_test

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input/inputtest"
	"github.com/verdict-ml/verdict/scores"
)

func TestJSONLWide(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string
		content string
		want    wideFile
	}{
		{
			name:    "plain",
			file:    "scores.jsonl",
			content: `{"sample_id": "u1", "ndcg@10": 0.5, "recall@10": 1}` + "\n" + `{"sample_id": "u2", "ndcg@10": 0, "recall@10": 2.5e-1}` + "\n",
			want: wideFile{Metrics: []string{"ndcg@10", "recall@10"}, Rows: []wideRow{
				{ID: "u1", Values: []float64{0.5, 1}, Where: "scores.jsonl: line 1"},
				{ID: "u2", Values: []float64{0, 0.25}, Where: "scores.jsonl: line 2"},
			}},
		},
		{
			name: "keys in another order, blank lines, CRLF, integer IDs, escapes, no final newline",
			file: "scores.ndjson",
			content: "\n" + `{"ndcg@10":0.5,"draw":0,"sample_id":12}` + "\r\n  \n" +
				`{"sample_id":"\u00e9\"x\"","draw":7,"ndcg@10":-1E2}` + "\n" +
				`{"draw":32767,"ndcg@10":0.25,"sample_id":-12345678901234567890}`,
			want: wideFile{Metrics: []string{"ndcg@10"}, HasDraw: true, Rows: []wideRow{
				{ID: "12", Values: []float64{0.5}, Where: "scores.ndjson: line 2"},
				{ID: `é"x"`, Draw: 7, Values: []float64{-100}, Where: "scores.ndjson: line 4"},
				{ID: "-12345678901234567890", Draw: 32767, Values: []float64{0.25}, Where: "scores.ndjson: line 5"},
			}},
		},
		{
			name:    "Python's NaN and Infinity",
			file:    "scores.jsonl",
			content: `{"sample_id": "u1", "a": NaN, "b": Infinity, "c": -Infinity}` + "\n",
			want: wideFile{Metrics: []string{"a", "b", "c"}, Rows: []wideRow{
				{ID: "u1", Values: []float64{math.NaN(), math.Inf(1), math.Inf(-1)}, Where: "scores.jsonl: line 1"},
			}},
		},
		{
			name:    "byte order mark and escaped keys",
			file:    "scores.jsonl",
			content: "\ufeff" + `{"sample_id": "u1", "ndcg\u004010": 0.5}` + "\n" + `{"ndcg@10": 0.25, "sample\u005fid": "u2"}` + "\n",
			want: wideFile{Metrics: []string{"ndcg@10"}, Rows: []wideRow{
				{ID: "u1", Values: []float64{0.5}, Where: "scores.jsonl: line 1"},
				{ID: "u2", Values: []float64{0.25}, Where: "scores.jsonl: line 2"},
			}},
		},
		{
			name:    "gzipped",
			file:    "scores.jsonl.gz",
			content: `{"sample_id": "u1", "ndcg@10": 0.5}` + "\n",
			want: wideFile{Metrics: []string{"ndcg@10"}, Rows: []wideRow{
				{ID: "u1", Values: []float64{0.5}, Where: "scores.jsonl.gz: line 1"},
			}},
		},
		{
			name:    "a line longer than the read buffer",
			file:    "scores.jsonl",
			content: `{"sample_id": "u1", "a": 1.` + strings.Repeat("0", 3<<20) + `}` + "\n" + `{"sample_id": "u2", "a": 2}`,
			want: wideFile{Metrics: []string{"a"}, Rows: []wideRow{
				{ID: "u1", Values: []float64{1}, Where: "scores.jsonl: line 1"},
				{ID: "u2", Values: []float64{2}, Where: "scores.jsonl: line 2"},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := inputtest.WriteFile(t, tt.file, []byte(tt.content))
			got, err := readWide(t, path, "")
			require.NoError(t, err)
			requireWide(t, tt.want.in(path), got)
		})
	}
}

func TestJSONLLong(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		want    longFile
	}{
		{
			name: "long",
			content: `{"sample_id": "u1", "metric": "ndcg@10", "value": 0.5}` + "\n" +
				`{"sample_id": "u1", "metric": "recall@10", "value": 1}` + "\n",
			want: longFile{Rows: []longRow{
				{ID: "u1", Metric: "ndcg@10", Value: 0.5, Where: "scores.jsonl: line 1"},
				{ID: "u1", Metric: "recall@10", Value: 1, Where: "scores.jsonl: line 2"},
			}},
		},
		{
			name: "long with draw",
			content: `{"metric": "ndcg@10", "value": 0.5, "draw": 1, "sample_id": 7}` + "\n" +
				`{"sample_id": 7, "draw": 2, "metric": "ndcg\u004010", "value": 0.25}` + "\n",
			want: longFile{HasDraw: true, Rows: []longRow{
				{ID: "7", Draw: 1, Metric: "ndcg@10", Value: 0.5, Where: "scores.jsonl: line 1"},
				{ID: "7", Draw: 2, Metric: "ndcg@10", Value: 0.25, Where: "scores.jsonl: line 2"},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := inputtest.WriteFile(t, "scores.jsonl", []byte(tt.content))
			got, err := readLong(t, path, "")
			require.NoError(t, err)
			requireLong(t, tt.want.in(path), got)
		})
	}
}

func TestJSONLBad(t *testing.T) {
	t.Parallel()
	const first = `{"sample_id": "u1", "ndcg@10": 0.5, "recall@10": 1}` + "\n"
	tests := []struct {
		name    string
		content string
		wantErr string // after the file's directory
	}{
		{
			name: "empty file", content: "",
			wantErr: `scores.jsonl: the file is empty; it needs one JSON object per line, with a sample_id key and one key per metric`,
		},
		{
			name: "blank lines only", content: "\n \n\t\n",
			wantErr: `scores.jsonl: the file is empty; it needs one JSON object per line, with a sample_id key and one key per metric`,
		},
		{
			name: "no sample_id", content: `{"user": "u1", "ndcg@10": 0.5}`,
			wantErr: `scores.jsonl: line 1: no "sample_id" key among "user", "ndcg@10"`,
		},
		{
			name: "no metric", content: `{"sample_id": "u1"}`,
			wantErr: `scores.jsonl: line 1: no metric keys besides "sample_id"`,
		},
		{
			name: "duplicate key in the first line", content: `{"sample_id": "u1", "a": 1, "a": 2}`,
			wantErr: `scores.jsonl: line 1: key "a" appears twice (keys 2 and 3)`,
		},
		{
			name: "duplicate key in a later line", content: first + `{"sample_id": "u2", "ndcg@10": 1, "ndcg@10": 2, "recall@10": 1}`,
			wantErr: `scores.jsonl: line 2: key "ndcg@10" appears twice`,
		},
		{
			name: "a key missing", content: first + `{"sample_id": "u2", "ndcg@10": 0.5}`,
			wantErr: `scores.jsonl: line 2 (sample "u2"): keys differ from line 1: this line lacks key "recall@10"`,
		},
		{
			name: "an extra key", content: first + `{"sample_id": "u2", "ndcg@10": 0.5, "recall@10": 1, "mrr": 1}`,
			wantErr: `scores.jsonl: line 2 (sample "u2"): keys differ from line 1: this line has key "mrr"`,
		},
		{
			name: "a misspelt key", content: "\n" + first + `{"sample_id": "u2", "ndgc@10": 0.5, "recall@10": 1}`,
			wantErr: `scores.jsonl: line 3 (sample "u2"): keys differ from line 2: this line lacks key "ndcg@10" and has key "ndgc@10"`,
		},
		{
			name: "sample_id missing", content: first + `{"ndcg@10": 0.5, "recall@10": 1}`,
			wantErr: `scores.jsonl: line 2: keys differ from line 1: this line lacks key "sample_id"`,
		},
		{
			name: "several keys differ", content: first + `{"sample_id": "u2", "x": 0.5, "y": 1}`,
			wantErr: `scores.jsonl: line 2 (sample "u2"): keys differ from line 1: this line lacks keys "ndcg@10", "recall@10" and has keys "x", "y"`,
		},
		{
			name: "null value", content: first + `{"sample_id": "u2", "ndcg@10": null, "recall@10": 1}`,
			wantErr: `scores.jsonl: line 2 (sample "u2"), key "ndcg@10": value missing`,
		},
		{
			name: "string value", content: first + `{"sample_id": "u2", "ndcg@10": "0.5", "recall@10": 1}`,
			wantErr: `scores.jsonl: line 2 (sample "u2"), key "ndcg@10": expected a number, got "0.5"`,
		},
		{
			name: "boolean value", content: `{"sample_id": "u2", "hit@10": true}`,
			wantErr: `scores.jsonl: line 1 (sample "u2"), key "hit@10": expected a number, got true`,
		},
		{
			name: "nested value", content: `{"sample_id": "u2", "ndcg": {"10": 0.5}}`,
			wantErr: `scores.jsonl: line 1 (sample "u2"), key "ndcg": expected a number, got an object`,
		},
		{
			name: "array value", content: `{"ndcg": [0.5, 0.25], "sample_id": "u2"}`,
			wantErr: `scores.jsonl: line 1 (sample "u2"), key "ndcg": expected a number, got an array`,
		},
		{
			name: "null sample ID", content: `{"sample_id": null, "a": 1}`,
			wantErr: `scores.jsonl: line 1, key "sample_id": sample ID missing`,
		},
		{
			name: "fractional sample ID", content: `{"sample_id": 1.5, "a": 1}`,
			wantErr: `scores.jsonl: line 1, key "sample_id": expected a string or an integer, got 1.5`,
		},
		{
			name: "fractional draw", content: `{"sample_id": "u1", "draw": 1.5, "a": 1}`,
			wantErr: `scores.jsonl: line 1 (sample "u1"), key "draw": draw 1.5 is not a whole number from 0 to 32767`,
		},
		{
			name: "draw as a string", content: `{"sample_id": "u1", "draw": "1", "a": 1}`,
			wantErr: `scores.jsonl: line 1 (sample "u1"), key "draw": draw "1" is not a whole number from 0 to 32767`,
		},
		{
			name: "draw too large", content: `{"sample_id": "u1", "draw": 40000, "a": 1}`,
			wantErr: `scores.jsonl: line 1 (sample "u1"), key "draw": draw 40000 is not a whole number from 0 to 32767`,
		},
		{
			name: "draw null", content: `{"sample_id": "u1", "draw": null, "a": 1}`,
			wantErr: `scores.jsonl: line 1 (sample "u1"), key "draw": draw missing`,
		},
		{
			name: "not an object", content: `["u1", 0.5]`,
			wantErr: `scores.jsonl: line 1: invalid JSON at byte 1: expected an object, one per line`,
		},
		{
			name: "empty object", content: `{}`,
			wantErr: `scores.jsonl: line 1: invalid JSON at byte 2: the object is empty`,
		},
		{
			name: "a pretty-printed object", content: "{\n  \"sample_id\": \"u1\",\n  \"a\": 1\n}\n",
			wantErr: `scores.jsonl: line 1: invalid JSON at byte 2: expected a quoted key`,
		},
		{
			name: "two objects on a line", content: `{"sample_id": "u1", "a": 1} {"sample_id": "u2", "a": 2}`,
			wantErr: `scores.jsonl: line 1: invalid JSON at byte 29: text after the object; put one object on each line`,
		},
		{
			name: "missing colon", content: first + `{"sample_id" "u2"}`,
			wantErr: `scores.jsonl: line 2: invalid JSON at byte 14: expected ':' after the key`,
		},
		{
			name: "unterminated string", content: first + `{"sample_id": "u2, "ndcg@10": 1}`,
			wantErr: `scores.jsonl: line 2: invalid JSON at byte 21: expected ',' or '}'`,
		},
		{
			name: "bad number", content: first + `{"sample_id": "u2", "ndcg@10": 01, "recall@10": 1}`,
			wantErr: `scores.jsonl: line 2 (sample "u2"), key "ndcg@10": 01 is not a number`,
		},
		{
			name: "single quotes", content: `{'sample_id': 'u1'}`,
			wantErr: `scores.jsonl: line 1: invalid JSON at byte 2: expected a quoted key`,
		},
		{
			name: "long form: metric not a string", content: `{"sample_id": "u1", "metric": 10, "value": 0.5}`,
			wantErr: `scores.jsonl: line 1 (sample "u1"), key "metric": expected a metric name, got 10`,
		},
		{
			name: "long form: empty metric", content: `{"sample_id": "u1", "metric": "", "value": 0.5}`,
			wantErr: `scores.jsonl: line 1 (sample "u1"), key "metric": expected a metric name, got ""`,
		},
		{
			name: "long form: value null", content: `{"sample_id": "u1", "metric": "a", "value": null}`,
			wantErr: `scores.jsonl: line 1 (sample "u1"), key "value": value missing`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := inputtest.WriteFile(t, "scores.jsonl", []byte(tt.content))
			err := readAll(t, path, "")
			require.EqualError(t, err, inDir(path, tt.wantErr))
			require.ErrorIs(t, err, scores.ErrBadInput)
		})
	}
}
